import type { ManualClock } from '@capstan/runtime/testing';
import { XMLParser } from 'fast-xml-parser';
import { type Answer, callSim } from '../src/http-client.js';
import { startVcdSim, type VcdSim, type VcdSimOptions } from '../src/index.js';

export const SAMPLE_SEED = new URL('../seeds/sample.yaml', import.meta.url).pathname;
export const XML_ACCEPT = 'application/*+xml;version=37.2';
export const JSON_ACCEPT = 'application/json;version=37.2';

export type { Answer } from '../src/http-client.js';

/** One HTTPS (or HTTP) request to the simulator, trusting its CA. */
export const request = callSim;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name, jpath) =>
    (name === 'Vm' && String(jpath) !== 'Vm') ||
    [
      'Link',
      'NetworkConnection',
      'ExtraConfig',
      'Item',
      'ResourceEntity',
      'MetadataEntry',
      'ProductSection',
      'Property',
      'VersionInfo',
      'NetworkConfig',
    ].includes(name) ||
    name.endsWith('Record') ||
    name.endsWith('Reference'),
});

/** Parses XML into plain objects (attributes as `@name`, namespace prefixes removed). */
// biome-ignore lint/suspicious/noExplicitAny: test-side XML navigation
export const parseXml = (text: string): any => parser.parse(text);

/** A logged-in tenant session. */
export class Tenant {
  constructor(
    readonly sim: VcdSim,
    readonly token: string,
  ) {}

  static async login(
    sim: VcdSim,
    user = 'alice',
    org = 'tenant-a',
    password = `${user}-password`,
  ): Promise<Tenant> {
    const res = await request(sim, 'POST', '/cloudapi/1.0.0/sessions', {
      headers: {
        Accept: 'application/*;version=37.2',
        Authorization: `Basic ${Buffer.from(`${user}@${org}:${password}`).toString('base64')}`,
      },
    });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return new Tenant(sim, String(res.headers['x-vmware-vcloud-access-token']));
  }

  xml(method: string, path: string, body?: string, contentType?: string): Promise<Answer> {
    return request(this.sim, method, path, {
      headers: {
        Accept: XML_ACCEPT,
        Authorization: `Bearer ${this.token}`,
        ...(contentType ? { 'Content-Type': contentType } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });
  }

  json(method: string, path: string, body?: unknown): Promise<Answer> {
    return request(this.sim, method, path, {
      headers: {
        Accept: JSON_ACCEPT,
        'X-VMWARE-VCLOUD-ACCESS-TOKEN': this.token,
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
  }

  /** Follows a query by name and returns the record's href. */
  async find(type: string, filter: string): Promise<string> {
    const res = await this.xml(
      'GET',
      `/api/query?type=${type}&format=records&filter=${encodeURIComponent(filter)}`,
    );
    const doc = parseXml(res.text);
    const key = Object.keys(doc.QueryResultRecords).find((k) => k.endsWith('Record'));
    const rec = key ? doc.QueryResultRecords[key]?.[0] : undefined;
    if (!rec) throw new Error(`no ${type} with ${filter}: ${res.text}`);
    return String(rec['@href']);
  }
}

/** Starts the simulator on a virtual clock with the sample seed. */
export function startVirtual(extra: Partial<VcdSimOptions> = {}): Promise<VcdSim<ManualClock>> {
  return startVcdSim({
    seed: SAMPLE_SEED,
    taskLatencyMs: 1000,
    bootDelayMs: 500,
    ...extra,
    clock: 'virtual',
  });
}

/** A path from an absolute href. */
export const pathOf = (href: string): string => new URL(href).pathname;
