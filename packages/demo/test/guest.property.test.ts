/**
 * The guest's reading of guestinfo: every encoding cloud-init accepts decodes back to the text;
 * kubeadm init makes a control-plane node, a control-plane join too, a plain join a worker; what
 * is not kubeadm bootstrap data (no metadata, not a cloud-config, no kubeadm command, an unknown
 * encoding) is refused with a reason.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeGuestinfoValue, readGuestBoot } from '../src/guest.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const meta = b64(JSON.stringify({ 'instance-id': 'urn:vcloud:vm:1234', 'local-hostname': 'cp-0' }));
const guestinfo = (userdata: string, encoding = 'base64') => ({
  'guestinfo.metadata': meta,
  'guestinfo.metadata.encoding': 'base64',
  'guestinfo.userdata': encoding === 'base64' ? b64(userdata) : userdata,
  'guestinfo.userdata.encoding': encoding,
});
const cloudConfig = (runcmd: string, joinConfig = '') =>
  `## template: jinja\n#cloud-config\nwrite_files:\n- path: /run/kubeadm/kubeadm.yaml\n  content: |\n    ---\n    kind: JoinConfiguration\n${joinConfig}runcmd:\n  - '${runcmd}'\n`;

describe('the guest reading guestinfo', () => {
  it('property: base64, b64, gzip+base64, gz+b64 and plain values decode to the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(decodeGuestinfoValue(b64(text), 'base64')).toBe(text);
        expect(decodeGuestinfoValue(b64(text), 'b64')).toBe(text);
        const gz = gzipSync(Buffer.from(text)).toString('base64');
        expect(decodeGuestinfoValue(gz, 'gzip+base64')).toBe(text);
        expect(decodeGuestinfoValue(gz, 'gz+b64')).toBe(text);
        expect(decodeGuestinfoValue(text, undefined)).toBe(text);
      }),
    );
  });

  it('kubeadm init: a control-plane node, named and identified by the metadata', () => {
    const boot = readGuestBoot(guestinfo(cloudConfig('kubeadm init --config /run/kubeadm/kubeadm.yaml')));
    expect(boot).toMatchObject({ hostname: 'cp-0', instanceId: 'urn:vcloud:vm:1234', role: 'control-plane' });
  });

  it('a plain join is a worker, a control-plane join a control-plane node', () => {
    const join = 'kubeadm join --config /run/kubeadm/kubeadm-join-config.yaml';
    expect(readGuestBoot(guestinfo(cloudConfig(join))).role).toBe('worker');
    expect(
      readGuestBoot(guestinfo(cloudConfig(join, '    controlPlane:\n      localAPIEndpoint: {}\n'))).role,
    ).toBe('control-plane');
  });

  it('refuses what is not kubeadm bootstrap data, saying why', () => {
    expect(() => readGuestBoot({ 'guestinfo.userdata': b64('#cloud-config\n') })).toThrow(
      'guestinfo.metadata is missing',
    );
    expect(() => readGuestBoot(guestinfo('{"ignition":{"version":"3.4.0"}}'))).toThrow(
      'the user data is not a #cloud-config',
    );
    expect(() => readGuestBoot(guestinfo('#cloud-config\nruncmd: [echo hello]\n'))).toThrow(
      'neither kubeadm init nor kubeadm join',
    );
    expect(() => readGuestBoot(guestinfo('x', 'rot13'))).toThrow('unknown guestinfo encoding "rot13"');
  });
});
