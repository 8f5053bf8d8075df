/** The guestinfo keys: bootstrap data verbatim, metadata for cloud-init's VMware datasource, VM names. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BootstrapFormat, bootstrapFormat, encodeBootstrap, guestinfoFor } from '../src/index.js';
import { parseQuantity } from '../src/machine/quantity.js';

const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
/** The bootstrap data of these bytes, encoded for guestinfo as the reconciler encodes it. */
const bootstrap = (bytes: string | Uint8Array, format: BootstrapFormat) => {
  const encoded = encodeBootstrap(b64(bytes));
  if ('error' in encoded) throw new Error(encoded.error);
  return { valueBase64: b64(bytes), format, encoded };
};

describe('guestinfoFor', () => {
  it('passes any bootstrap bytes verbatim: guestinfo.userdata decodes to exactly the Secret value', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 4096 }),
        fc.constantFrom('cloud-config', 'ignition'),
        (bytes, format) => {
          const keys = guestinfoFor(bootstrap(bytes, format as BootstrapFormat), {
            instanceId: 'urn:vcloud:vm:1',
            hostname: 'm1',
          });
          const data =
            format === 'ignition' ? keys['guestinfo.ignition.config.data'] : keys['guestinfo.userdata'];
          expect(Buffer.from(data as string, 'base64')).toEqual(Buffer.from(bytes));
          expect(
            keys[
              format === 'ignition'
                ? 'guestinfo.ignition.config.data.encoding'
                : 'guestinfo.userdata.encoding'
            ],
          ).toBe('base64');
          expect(
            keys[format === 'ignition' ? 'guestinfo.userdata' : 'guestinfo.ignition.config.data'],
          ).toBeUndefined();
        },
      ),
    );
  });

  it('writes cloud-init metadata with instance-id, local-hostname and a static network when the IP is known', () => {
    const keys = guestinfoFor(bootstrap('#cloud-config\n', 'cloud-config'), {
      instanceId: 'urn:vcloud:vm:abc',
      hostname: 'w-1',
      nics: [
        {
          name: 'eth0',
          primary: true,
          mac: '00:50:56:AA:BB:CC',
          address: { ip: '10.10.0.101', prefixLength: 24, gateway: '10.10.0.1' },
          dns: ['10.10.0.2'],
        },
      ],
    });
    expect(keys['guestinfo.metadata.encoding']).toBe('base64');
    const meta = JSON.parse(Buffer.from(keys['guestinfo.metadata'] as string, 'base64').toString());
    expect(meta).toEqual({
      'instance-id': 'urn:vcloud:vm:abc',
      'local-hostname': 'w-1',
      network: {
        version: 2,
        ethernets: {
          eth0: {
            match: { macaddress: '00:50:56:aa:bb:cc' },
            'set-name': 'eth0',
            dhcp4: false,
            addresses: ['10.10.0.101/24'],
            routes: [{ to: 'default', via: '10.10.0.1' }],
            nameservers: { addresses: ['10.10.0.2'] },
          },
        },
      },
    });
  });

  it('reads the format key; a missing one is cloud-config, an unknown one is refused', () => {
    expect(bootstrapFormat(undefined)).toBe('cloud-config');
    expect(bootstrapFormat(b64('ignition'))).toBe('ignition');
    expect(bootstrapFormat(b64('cloud-config'))).toBe('cloud-config');
    expect(bootstrapFormat(b64('shell'))).toBeUndefined();
  });
});

describe('parseQuantity', () => {
  it('reads binary and decimal suffixes', () => {
    expect(parseQuantity('20Gi')).toBe(20 * 2 ** 30);
    expect(parseQuantity('500M')).toBe(5e8);
    expect(parseQuantity(1024)).toBe(1024);
    expect(parseQuantity('-1Gi')).toBeUndefined();
  });
});
