// prom-client ships types for its index only; these give its class modules the index's types.
declare module 'prom-client/lib/counter.js' {
  const Counter: typeof import('prom-client').Counter;
  export default Counter;
}
declare module 'prom-client/lib/gauge.js' {
  const Gauge: typeof import('prom-client').Gauge;
  export default Gauge;
}
declare module 'prom-client/lib/histogram.js' {
  const Histogram: typeof import('prom-client').Histogram;
  export default Histogram;
}
declare module 'prom-client/lib/registry.js' {
  const Registry: typeof import('prom-client').Registry;
  export default Registry;
}
declare module 'prom-client/lib/defaultMetrics.js' {
  const collectDefaultMetrics: typeof import('prom-client').collectDefaultMetrics;
  export default collectDefaultMetrics;
}
