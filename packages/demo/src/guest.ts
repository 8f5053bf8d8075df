/**
 * What a booting VM's guest finds: the VMware guestinfo keys, read as cloud-init's VMware datasource
 * reads them (`guestinfo.metadata` and `guestinfo.userdata`, each with its `.encoding`), and the
 * kubeadm bootstrap data in them. Pure, so decoding and refusals are tested apart from vcdsim.
 */
import { gunzipSync } from 'node:zlib';
import { parse } from 'yaml';

/** What a node's guest learned at boot. */
export interface GuestBoot {
  /** `local-hostname` of the metadata: the Node's name. */
  hostname: string;
  /** `instance-id` of the metadata (`urn:vcloud:vm:<uuid>`). */
  instanceId: string;
  /** `kubeadm init` or a control-plane join makes a control-plane node; a plain join a worker. */
  role: 'control-plane' | 'worker';
  /** The commands cloud-init would run, in order. */
  runcmd: string[];
}

/** Decodes one guestinfo value per its `.encoding` key (the encodings cloud-init accepts). */
export function decodeGuestinfoValue(value: string, encoding: string | undefined): string {
  switch ((encoding ?? '').trim()) {
    case '':
      return value;
    case 'base64':
    case 'b64':
      return Buffer.from(value, 'base64').toString('utf8');
    case 'gzip+base64':
    case 'gz+b64':
      return gunzipSync(Buffer.from(value, 'base64')).toString('utf8');
    default:
      throw new Error(`unknown guestinfo encoding ${JSON.stringify(encoding)}`);
  }
}

const asRecord = (v: unknown, what: string): Record<string, unknown> => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${what} is not a mapping`);
  return v as Record<string, unknown>;
};

const commandText = (c: unknown): string => (Array.isArray(c) ? c.map(String).join(' ') : String(c));

/**
 * Reads the guest's identity and its kubeadm bootstrap data from `guestinfo`.
 * @throws Error saying what is missing or wrong (no metadata, not a cloud-config, no kubeadm command).
 */
export function readGuestBoot(guestinfo: Record<string, string>): GuestBoot {
  const rawMeta = guestinfo['guestinfo.metadata'];
  if (rawMeta === undefined) throw new Error('guestinfo.metadata is missing');
  const meta = asRecord(
    parse(decodeGuestinfoValue(rawMeta, guestinfo['guestinfo.metadata.encoding'])),
    'guestinfo.metadata',
  );
  const hostname = meta['local-hostname'];
  const instanceId = meta['instance-id'];
  if (typeof hostname !== 'string' || hostname === '') throw new Error('the metadata has no local-hostname');
  if (typeof instanceId !== 'string' || instanceId === '') throw new Error('the metadata has no instance-id');

  const rawUser = guestinfo['guestinfo.userdata'];
  if (rawUser === undefined) throw new Error('guestinfo.userdata is missing');
  const userdata = decodeGuestinfoValue(rawUser, guestinfo['guestinfo.userdata.encoding']);
  // cloud-init reads the part type from the first line; a `## template: jinja` line may come first.
  const lines = userdata.split('\n');
  const header = lines[0]?.startsWith('## template:') ? lines[1] : lines[0];
  if (header?.trim() !== '#cloud-config') throw new Error('the user data is not a #cloud-config');
  const config = asRecord(parse(userdata) ?? {}, 'the cloud-config');
  const runcmd = Array.isArray(config.runcmd) ? config.runcmd.map(commandText) : [];
  const files = Array.isArray(config.write_files) ? config.write_files : [];
  const init = runcmd.some((c) => /\bkubeadm init\b/.test(c));
  const join = runcmd.some((c) => /\bkubeadm join\b/.test(c));
  if (!init && !join) throw new Error('the cloud-config runs neither kubeadm init nor kubeadm join');
  // A control-plane join's JoinConfiguration carries a `controlPlane:` section.
  const controlPlaneJoin = files.some((f) => {
    const file = f as { path?: unknown; content?: unknown };
    return typeof file.content === 'string' && /^controlPlane:/m.test(file.content);
  });
  return { hostname, instanceId, role: init || controlPlaneJoin ? 'control-plane' : 'worker', runcmd };
}
