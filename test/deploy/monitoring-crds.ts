/**
 * Prometheus Operator's ServiceMonitor and PrometheusRule CRDs, read from its Go module (the YAML
 * it ships in example/prometheus-operator-crd), fetched through the Go module proxy and cached in
 * Go's module cache: the chart's monitoring objects are checked against the real schemas.
 */
import { join } from 'node:path';
import { moduleSource } from '../../packages/envtest/src/index.js';

const MODULE = 'github.com/prometheus-operator/prometheus-operator';
export const PROMETHEUS_OPERATOR_VERSION = 'v0.85.0';

/** The paths of the two CRD files in the module's source. */
export async function monitoringCrdFiles(): Promise<string[]> {
  const { dir } = await moduleSource(MODULE, PROMETHEUS_OPERATOR_VERSION);
  return ['servicemonitors', 'prometheusrules'].map((plural) =>
    join(dir, 'example/prometheus-operator-crd', `monitoring.coreos.com_${plural}.yaml`),
  );
}
