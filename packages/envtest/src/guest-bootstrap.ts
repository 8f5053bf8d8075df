/**
 * What a booting VM's guest finds in VMware guestinfo, read as its first-boot agent would: the
 * metadata (`guestinfo.metadata`: the hostname and instance id cloud-init's VMware datasource
 * reads), and the bootstrap data, either a cloud-config (`guestinfo.userdata`, run by cloud-init)
 * or an Ignition config (`guestinfo.ignition.config.data`, run by Ignition and systemd). From the
 * files and commands they hold, the kubeadm step the node runs: init, a control-plane join or a
 * worker join, and the kubeadm configuration it passes. Pure, so property-tested apart from any
 * cluster.
 */
import { gunzipSync } from 'node:zlib';
import { parse, parseAllDocuments } from 'yaml';

/** The kubeadm step a node's bootstrap data runs. */
export type KubeadmStep = 'init' | 'join-control-plane' | 'join';

/** What a guest learned at boot. */
export interface GuestBootstrap {
  /** `local-hostname` of the metadata: the Node's name. */
  hostname: string;
  /** `instance-id` of the metadata (for VCD, `urn:vcloud:vm:<uuid>`). */
  instanceId: string;
  format: 'cloud-config' | 'ignition';
  /** Files the agent writes, by path. */
  files: Record<string, string>;
  /** The commands it runs, in order. */
  commands: string[];
  step: KubeadmStep;
  /** The documents of the kubeadm configuration file given to `--config`, by `kind`. */
  kubeadmConfig: Record<string, Record<string, unknown>>;
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

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const commandText = (c: unknown): string => (Array.isArray(c) ? c.map(String).join(' ') : String(c));

/** One `write_files` entry's content, decoded per its `encoding` as cloud-init does. */
function cloudConfigFileContent(file: Record<string, unknown>): string {
  const content = typeof file.content === 'string' ? file.content : '';
  const encoding = typeof file.encoding === 'string' ? file.encoding : '';
  if (['', 'text/plain'].includes(encoding)) return content;
  return decodeGuestinfoValue(content, encoding.replace('application/base64', 'base64'));
}

/** Files and commands of a cloud-config (`write_files`, `runcmd`). */
function readCloudConfig(text: string): Pick<GuestBootstrap, 'files' | 'commands'> {
  // cloud-init reads the part type from the first line; a `## template: jinja` line may come first.
  const lines = text.split('\n');
  const header = lines[0]?.startsWith('## template:') ? lines[1] : lines[0];
  if (header?.trim() !== '#cloud-config') throw new Error('the user data is not a #cloud-config');
  const config = asRecord(parse(text) ?? {}, 'the cloud-config');
  const files: Record<string, string> = {};
  for (const entry of asArray(config.write_files)) {
    const file = asRecord(entry, 'a write_files entry');
    if (typeof file.path !== 'string') throw new Error('a write_files entry has no path');
    files[file.path] = cloudConfigFileContent(file);
  }
  return { files, commands: asArray(config.runcmd).map(commandText) };
}

/** A data URL's payload (`data:[<type>][;base64],<data>`), as Ignition fetches it. */
function dataUrlContent(source: string, compression: unknown): string {
  const match = /^data:([^,]*),(.*)$/s.exec(source);
  if (!match) throw new Error(`an Ignition file source is not a data URL: ${source.slice(0, 40)}`);
  const [, meta = '', data = ''] = match;
  const bytes = meta.endsWith(';base64')
    ? Buffer.from(data, 'base64')
    : Buffer.from(decodeURIComponent(data), 'utf8');
  return (compression === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
}

/**
 * Files and commands of an Ignition config: `storage.files`, and the lines of every script an
 * enabled systemd unit starts (`ExecStart=[/bin/bash ]<path>`), as systemd would run them.
 */
function readIgnition(text: string): Pick<GuestBootstrap, 'files' | 'commands'> {
  const config = asRecord(JSON.parse(text), 'the Ignition config');
  const ignition = asRecord(config.ignition ?? {}, 'its ignition section');
  if (typeof ignition.version !== 'string') throw new Error('the Ignition config has no ignition.version');
  const files: Record<string, string> = {};
  for (const entry of asArray(asRecord(config.storage ?? {}, 'storage').files)) {
    const file = asRecord(entry, 'a storage.files entry');
    const contents = asRecord(file.contents ?? {}, `the contents of ${String(file.path)}`);
    if (typeof file.path !== 'string') throw new Error('a storage.files entry has no path');
    files[file.path] =
      typeof contents.source === 'string' ? dataUrlContent(contents.source, contents.compression) : '';
  }
  const commands: string[] = [];
  for (const entry of asArray(asRecord(config.systemd ?? {}, 'systemd').units)) {
    const unit = asRecord(entry, 'a systemd unit');
    if (unit.enabled === false || typeof unit.contents !== 'string') continue;
    for (const [, script] of unit.contents.matchAll(/^ExecStart=(?:\S*\/(?:ba)?sh\s+)?(\/\S+)/gm)) {
      const body = files[script as string];
      if (body !== undefined)
        commands.push(...body.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')));
    }
  }
  return { files, commands };
}

/** The kubeadm step among `commands`, and the path its `--config` names. */
function kubeadmCommand(commands: string[]): { verb: 'init' | 'join'; configPath: string } {
  for (const command of commands) {
    const match = /\bkubeadm\s+(init|join)\b(.*)/.exec(command);
    if (!match) continue;
    const config = /--config[=\s]+(\S+)/.exec(match[2] ?? '');
    if (!config?.[1]) throw new Error(`'kubeadm ${match[1]}' runs without --config: ${command.trim()}`);
    return { verb: match[1] as 'init' | 'join', configPath: config[1] };
  }
  throw new Error('the bootstrap data runs neither kubeadm init nor kubeadm join');
}

/** The documents of a kubeadm configuration file, by `kind`. */
export function kubeadmDocuments(text: string): Record<string, Record<string, unknown>> {
  const byKind: Record<string, Record<string, unknown>> = {};
  for (const doc of parseAllDocuments(text)) {
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) continue;
    const record = asRecord(value, 'a kubeadm configuration document');
    if (typeof record.kind === 'string') byKind[record.kind] = record;
  }
  return byKind;
}

/**
 * Reads the guest's identity and its kubeadm step from `guestinfo`.
 * @throws Error saying what is missing or wrong (no metadata, neither format, no kubeadm command).
 */
export function readGuestBootstrap(guestinfo: Record<string, string>): GuestBootstrap {
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

  const ignition = guestinfo['guestinfo.ignition.config.data'];
  const userdata = guestinfo['guestinfo.userdata'];
  let read: Pick<GuestBootstrap, 'files' | 'commands'>;
  let format: GuestBootstrap['format'];
  if (ignition !== undefined) {
    format = 'ignition';
    read = readIgnition(decodeGuestinfoValue(ignition, guestinfo['guestinfo.ignition.config.data.encoding']));
  } else if (userdata !== undefined) {
    format = 'cloud-config';
    read = readCloudConfig(decodeGuestinfoValue(userdata, guestinfo['guestinfo.userdata.encoding']));
  } else throw new Error('guestinfo holds neither guestinfo.userdata nor guestinfo.ignition.config.data');

  const { verb, configPath } = kubeadmCommand(read.commands);
  const configText = read.files[configPath];
  if (configText === undefined)
    throw new Error(`kubeadm ${verb} --config ${configPath}: no such file written`);
  const kubeadmConfig = kubeadmDocuments(configText);
  const join = kubeadmConfig.JoinConfiguration;
  if (verb === 'init' && !kubeadmConfig.ClusterConfiguration)
    throw new Error(`${configPath} holds no ClusterConfiguration for kubeadm init`);
  if (verb === 'join' && !join) throw new Error(`${configPath} holds no JoinConfiguration for kubeadm join`);
  const step: KubeadmStep = verb === 'init' ? 'init' : join?.controlPlane ? 'join-control-plane' : 'join';
  return { hostname, instanceId, format, ...read, step, kubeadmConfig };
}
