// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VARIABLE} is clusterctl's substitution syntax, meant literally here.
/**
 * The kube-vip static pod of the `no-lb` flavor: ARP leader election among the control-plane
 * nodes holds CONTROL_PLANE_ENDPOINT_IP (CAPV's default flavor does the same), for VDCs without
 * NSX-T ALB (#666).
 */
import { toYaml } from './yaml.js';

/** The Pod manifest, as the file kubelet reads from /etc/kubernetes/manifests. */
export const kubeVipPod = (): string =>
  toYaml({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'kube-vip', namespace: 'kube-system' },
    spec: {
      hostNetwork: true,
      hostAliases: [{ ip: '127.0.0.1', hostnames: ['kubernetes'] }],
      containers: [
        {
          name: 'kube-vip',
          image: '${KUBE_VIP_IMAGE:=ghcr.io/kube-vip/kube-vip:v0.8.9}',
          args: ['manager'],
          env: [
            { name: 'cp_enable', value: 'true' },
            { name: 'vip_arp', value: 'true' },
            { name: 'vip_leaderelection', value: 'true' },
            { name: 'address', value: '${CONTROL_PLANE_ENDPOINT_IP}' },
            { name: 'vip_port', value: '${CONTROL_PLANE_ENDPOINT_PORT:=6443}' },
            { name: 'vip_interface', value: '${VIP_NETWORK_INTERFACE:=""}' },
          ],
          securityContext: { capabilities: { add: ['NET_ADMIN', 'NET_RAW'] } },
          volumeMounts: [{ mountPath: '/etc/kubernetes/admin.conf', name: 'kubeconfig' }],
        },
      ],
      volumes: [
        { name: 'kubeconfig', hostPath: { path: '/etc/kubernetes/admin.conf', type: 'FileOrCreate' } },
      ],
    },
  });
