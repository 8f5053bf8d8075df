/**
 * Metadata on vApps and VMs: `GET …/metadata`, `GET|PUT|DELETE …/metadata/{key}`. Writes are Tasks
 * (202), as on VCD; reading a key that is not there is VCD's 403.
 */
import type { MetadataEntry } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, requireContentType, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import type { Task } from '../tasks/runner.js';
import { doc, el, text } from '../xml/build.js';
import { MT, ROOT_NS } from '../xml/ns.js';
import { child, childText, parseBody, type XNode } from '../xml/parse.js';
import { link, path } from '../xml/refs.js';
import { METADATA_VALUE } from '../xml/specs.js';
import { accepted, idParam, orgOf, vappTask, vmTask } from './common.js';

const TYPES: Record<string, (v: string) => boolean> = {
  MetadataStringValue: () => true,
  MetadataNumberValue: (v) => v.trim() !== '' && Number.isFinite(Number(v)),
  MetadataBooleanValue: (v) => v === 'true' || v === 'false',
  MetadataDateTimeValue: (v) => !Number.isNaN(Date.parse(v)),
};

function entryXml(base: string, owner: string, key: string, e: MetadataEntry, root: boolean): string {
  const tag = root ? 'MetadataValue' : 'MetadataEntry';
  return el(
    tag,
    {
      ...(root ? ROOT_NS : {}),
      href: `${base}${owner}/metadata/${encodeURIComponent(key)}`,
      type: MT.metadataValue,
    },
    root ? link(base, 'up', MT.metadata, `${owner}/metadata`) : undefined,
    // VCD leaves Domain out for the default (GENERAL, READWRITE); the SDK's own tests expect that.
    e.domain === 'GENERAL' && e.visibility === 'READWRITE'
      ? undefined
      : text('Domain', e.domain, { visibility: e.visibility }),
    root ? undefined : text('Key', key),
    el('TypedValue', { 'xsi:type': e.type }, text('Value', e.value)),
  );
}

const VISIBILITIES = ['READWRITE', 'READONLY', 'PRIVATE'];

/**
 * Domain and visibility of a MetadataValue (GENERAL, READWRITE when absent). Tenants write only
 * the GENERAL domain: SYSTEM is the system administrator's, and VCD answers 403 to anyone else.
 */
export function readDomain(node: XNode | undefined): Pick<MetadataEntry, 'domain' | 'visibility'> {
  const domain = node?.text.trim() || 'GENERAL';
  const visibility = node?.attrs.visibility ?? 'READWRITE';
  if (domain !== 'GENERAL' && domain !== 'SYSTEM')
    throw errors.badRequest(`Unknown metadata domain "${domain}".`);
  if (!VISIBILITIES.includes(visibility))
    throw errors.badRequest(`Unknown metadata visibility "${visibility}".`);
  if (domain === 'SYSTEM')
    throw errors.forbidden('Only a system administrator may write metadata in the SYSTEM domain.');
  return { domain, visibility: visibility as MetadataEntry['visibility'] };
}

/** Where a metadata route finds its map, and how a write on that owner becomes a Task. */
interface MetadataTarget {
  prefix: string;
  find: (ctx: Ctx) => {
    map: Map<string, MetadataEntry>;
    owner: string;
    task: (op: string, desc: string, fx: () => void) => Task;
  };
}

/** vApps and VMs carry metadata; each answers in its own org's view and records its own Task. */
function metadataTargets(sim: Simulator): MetadataTarget[] {
  const w = sim.world;
  return [
    {
      prefix: '/api/vApp/vapp-{id}',
      find: (ctx) => {
        const vapp = w.visible(w.vapps, idParam(ctx), orgOf(ctx));
        return {
          map: vapp.metadata,
          owner: path.vapp(vapp.id),
          task: (op, desc, fx) => vappTask(sim, ctx, vapp, op, desc, fx),
        };
      },
    },
    {
      prefix: '/api/vApp/vm-{id}',
      find: (ctx) => {
        const vm = w.visibleVm(idParam(ctx), orgOf(ctx));
        return {
          map: vm.metadata,
          owner: path.vm(vm.id),
          task: (op, desc, fx) => vmTask(sim, ctx, vm, op, desc, fx),
        };
      },
    },
  ];
}

/** Registers the metadata routes for vApps and VMs. */
export function metadataRoutes(r: Router, sim: Simulator): void {
  for (const t of metadataTargets(sim)) {
    r.add('GET', `${t.prefix}/metadata`, (ctx) => {
      const { map, owner } = t.find(ctx);
      const body = el(
        'Metadata',
        { ...ROOT_NS, href: `${ctx.base}${owner}/metadata`, type: MT.metadata },
        link(ctx.base, 'up', undefined, owner),
        ...[...map].map(([k, e]) => entryXml(ctx.base, owner, k, e, false)),
      );
      return xml(200, MT.metadata, doc(body));
    });
    // `…/metadata/SYSTEM/{key}` is the system administrator's domain: 403 for a tenant, as VCD
    // answers; `…/metadata/GENERAL/{key}` is the same entry as `…/metadata/{key}`.
    for (const method of ['GET', 'PUT', 'DELETE'])
      r.add(method, `${t.prefix}/metadata/SYSTEM/{key}`, (ctx) => {
        t.find(ctx);
        throw errors.forbidden('Only a system administrator may use metadata in the SYSTEM domain.');
      });
    for (const keyPath of [`${t.prefix}/metadata/{key}`, `${t.prefix}/metadata/GENERAL/{key}`])
      keyRoutes(r, sim, keyPath, t);
  }
}

/** The entry a `PUT …/metadata/{key}` body asks for: a typed value that must parse as its type. */
function readEntry(key: string, body: XNode): MetadataEntry {
  if (!key || key.length > 256) throw errors.badRequest('A metadata key must be 1-256 characters.');
  const typed = child(body, 'TypedValue');
  const type = typed?.attrs.type ?? 'MetadataStringValue';
  const value = childText(typed, 'Value');
  if (value === undefined) throw errors.badRequest('MetadataValue needs TypedValue/Value.');
  const valid = TYPES[type];
  if (!valid) throw errors.badRequest(`Unknown metadata type "${type}".`);
  if (!valid(value)) throw errors.badRequest(`"${value}" is not a valid ${type}.`);
  const { domain, visibility } = readDomain(child(body, 'Domain'));
  return { domain, type, value, visibility };
}

/** One key of one owner: read it, write it (a Task), delete it (a Task); a missing key is 403. */
function keyRoutes(r: Router, sim: Simulator, keyPath: string, t: MetadataTarget): void {
  r.add('GET', keyPath, (ctx) => {
    const { map, owner } = t.find(ctx);
    const e = map.get(ctx.params.key ?? '');
    if (!e) throw errors.forbidden();
    return xml(200, MT.metadataValue, doc(entryXml(ctx.base, owner, ctx.params.key ?? '', e, true)));
  });
  r.add('PUT', keyPath, async (ctx) => {
    const target = t.find(ctx);
    requireContentType(ctx, MT.metadataValue);
    const body = parseBody(await ctx.body(), 'MetadataValue', METADATA_VALUE);
    const key = ctx.params.key ?? '';
    const entry = readEntry(key, body);
    const task = target.task('metadataUpdate', `Updated metadata ${key}`, () => {
      target.map.set(key, entry);
    });
    return accepted(sim, ctx, task);
  });
  r.add('DELETE', keyPath, (ctx) => {
    const target = t.find(ctx);
    const key = ctx.params.key ?? '';
    if (!target.map.has(key)) throw errors.forbidden();
    return accepted(
      sim,
      ctx,
      target.task('metadataDelete', `Deleted metadata ${key}`, () => target.map.delete(key)),
    );
  });
}
