/** Property tests of the pure decisions: IP pools, FIQL, the task state machine, health, input checking. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readDomain } from '../src/api/metadata.js';
import { memberHealth, poolHealth } from '../src/cloudapi/health.js';
import {
  allocate,
  buildWorld,
  type Filter,
  FiqlError,
  formatFiql,
  inRanges,
  isTerminal,
  matches,
  parseFiql,
  poolSize,
  SeedError,
  step,
  type TaskEvent,
  type TaskState,
  VcdError,
} from '../src/index.js';
import { intToIp, ipToInt } from '../src/model/ippool.js';
import { parseBody, type XNode } from '../src/xml/parse.js';
import { COMPOSE_VAPP_PARAMS, VIRTUAL_HARDWARE_SECTION } from '../src/xml/specs.js';

const BASE = ipToInt('10.0.0.0')!;
const range = fc
  .tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 8 }))
  .map(([a, len]) => ({ startAddress: intToIp(BASE + a), endAddress: intToIp(BASE + a + len) }));
const ranges = fc.array(range, { minLength: 1, maxLength: 4 });
const usedIn = (rs: { startAddress: string; endAddress: string }[]) =>
  fc.subarray([
    ...new Set(
      rs.flatMap((r) =>
        Array.from({ length: ipToInt(r.endAddress)! - ipToInt(r.startAddress)! + 1 }, (_, i) =>
          intToIp(ipToInt(r.startAddress)! + i),
        ),
      ),
    ),
  ]);

describe('IP pool allocation', () => {
  it('hands out the lowest free address of the pool, or nothing when every address is used', () => {
    fc.assert(
      fc.property(
        ranges.chain((rs) => fc.tuple(fc.constant(rs), usedIn(rs))),
        ([rs, used]) => {
          const ip = allocate(rs, new Set(used));
          if (used.length === poolSize(rs)) return ip === undefined;
          if (ip === undefined || !inRanges(ip, rs) || used.includes(ip)) return false;
          // Nothing lower in the pool is free.
          for (let v = BASE; v < ipToInt(ip)!; v++)
            if (inRanges(intToIp(v), rs) && !used.includes(intToIp(v))) return false;
          return true;
        },
      ),
    );
  });

  it('allocating the pool size times gives distinct addresses and then runs dry', () => {
    fc.assert(
      fc.property(ranges, (rs) => {
        const used = new Set<string>();
        for (let i = 0; i < poolSize(rs); i++) {
          const ip = allocate(rs, used);
          if (ip === undefined || used.has(ip)) return false;
          used.add(ip);
        }
        return allocate(rs, used) === undefined;
      }),
    );
  });
});

const FIELDS = ['name', 'status', 'size'];
const value = fc.stringMatching(/^[a-z0-9*]{1,4}$/);
const cmp: fc.Arbitrary<Filter> = fc.record({
  kind: fc.constant('cmp' as const),
  field: fc.constantFrom(...FIELDS),
  op: fc.constantFrom('==', '!=', '=lt=', '=le=', '=gt=', '=ge=') as fc.Arbitrary<'=='>,
  value,
});
const filter: fc.Arbitrary<Filter> = fc.letrec<{ f: Filter }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    cmp,
    fc.record({
      kind: fc.constant('and' as const),
      parts: fc.array(tie('f'), { minLength: 2, maxLength: 3 }),
    }),
    fc.record({
      kind: fc.constant('or' as const),
      parts: fc.array(tie('f'), { minLength: 2, maxLength: 3 }),
    }),
  ),
})).f;
const record = fc.record({
  name: fc.option(fc.stringMatching(/^[a-z0-9]{0,4}$/), { nil: undefined }),
  status: fc.option(fc.stringMatching(/^[a-z0-9]{1,3}$/), { nil: undefined }),
  size: fc.option(fc.integer({ min: -5, max: 50 }), { nil: undefined }),
});
const getter = (r: Record<string, string | number | undefined>) => (f: string) => r[f];

describe('FIQL', () => {
  it('means the same after writing it out and parsing it again', () => {
    fc.assert(
      fc.property(
        filter,
        record,
        (f, r) => matches(parseFiql(formatFiql(f)), getter(r)) === matches(f, getter(r)),
      ),
    );
  });

  it('reads ";" as AND and "," as OR', () => {
    fc.assert(
      fc.property(cmp, cmp, record, (p, q, r) => {
        const g = getter(r);
        const a = formatFiql(p);
        const b = formatFiql(q);
        return (
          matches(parseFiql(`${a};${b}`), g) === (matches(p, g) && matches(q, g)) &&
          matches(parseFiql(`${a},${b}`), g) === (matches(p, g) || matches(q, g))
        );
      }),
    );
  });

  it('"==" is exact without wildcards, and "!=" its negation on present fields', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{1,5}$/), fc.stringMatching(/^[a-z0-9]{1,5}$/), (v, w) => {
        const g = getter({ name: v });
        return (
          matches(parseFiql(`name==${w}`), g) === (v === w) &&
          matches(parseFiql(`name!=${w}`), g) === (v !== w)
        );
      }),
    );
  });

  it('refuses malformed text with FiqlError and nothing else', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (s) => {
        try {
          parseFiql(s);
          return true;
        } catch (e) {
          return e instanceof FiqlError;
        }
      }),
    );
  });
});

const error = { status: 500, minorErrorCode: 'X', message: 'm' };
const event: fc.Arbitrary<TaskEvent> = fc.oneof(
  fc.constant({ type: 'start' as const }),
  fc.integer({ min: -50, max: 150 }).map((percent) => ({ type: 'progress' as const, percent })),
  fc.constant({ type: 'succeed' as const }),
  fc.constant({ type: 'fail' as const, error }),
  fc.constant({ type: 'cancel' as const }),
  fc.constant({ type: 'abort' as const }),
);

describe('task state machine', () => {
  it('ends at most once, keeps progress in 0..100 and growing, 100 exactly on success', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), (events) => {
        let s: TaskState = { status: 'queued', progress: 0, cancelRequested: false };
        let endedAs: string | undefined;
        for (const e of events) {
          const next = step(s, e);
          if (next.progress < s.progress || next.progress < 0 || next.progress > 100) return false;
          if (endedAs && next !== s) return false;
          if (isTerminal(next.status) && !endedAs) endedAs = next.status;
          if ((next.progress === 100) !== (next.status === 'success')) return false;
          if ((next.status === 'error' || next.status === 'aborted') && !next.error) return false;
          s = next;
        }
        return true;
      }),
    );
  });

  it('succeeds only from running', () => {
    expect(step({ status: 'queued', progress: 0, cancelRequested: false }, { type: 'succeed' }).status).toBe(
      'queued',
    );
    expect(step({ status: 'running', progress: 0, cancelRequested: false }, { type: 'succeed' }).status).toBe(
      'success',
    );
  });
});

describe('load balancer health', () => {
  it('a pool is UP exactly when it is enabled and one member is UP', () => {
    const facts = fc.record({ enabled: fc.boolean(), vmRunning: fc.boolean(), serving: fc.boolean() });
    fc.assert(
      fc.property(fc.boolean(), fc.array(facts, { maxLength: 6 }), (enabled, ms) => {
        const health = ms.map(memberHealth);
        const up = ms.some((m) => m.enabled && m.vmRunning && m.serving);
        return (poolHealth(enabled, health) === 'UP') === (enabled && up);
      }),
    );
  });
});

describe('bad input never crashes', () => {
  it('a seed key named like an Object.prototype member is an unknown field, not a crash', () => {
    expect(() => buildWorld({ toString: { '': 0 } } as never)).toThrow(SeedError);
    expect(() => buildWorld({ orgs: [], constructor: 1 } as never)).toThrow(
      /seed\.constructor: unknown field/,
    );
  });

  it('any seed document either builds or fails with a SeedError', () => {
    fc.assert(
      fc.property(fc.anything(), (doc) => {
        try {
          buildWorld(doc as never);
          return true;
        } catch (e) {
          return e instanceof SeedError;
        }
      }),
    );
  });

  it('any request body is read or refused with a VCD 400', () => {
    const xmlish = fc.oneof(
      fc.string(),
      fc.stringMatching(/^<[A-Za-z ="/>]{0,40}$/),
      fc.constant(
        '<ComposeVAppParams xmlns="http://www.vmware.com/vcloud/v1.5" name="a"><X/></ComposeVAppParams>',
      ),
    );
    fc.assert(
      fc.property(xmlish, (s) => {
        try {
          parseBody(Buffer.from(s), 'ComposeVAppParams', COMPOSE_VAPP_PARAMS);
          return true;
        } catch (e) {
          return e instanceof VcdError && e.status === 400;
        }
      }),
    );
  });
});

describe('namespaces of request bodies', () => {
  const OVF = 'http://schemas.dmtf.org/ovf/envelope/1';
  const VMW = 'http://www.vmware.com/schema/ovf';
  const prefix = fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/).filter((p) => !p.startsWith('xml'));
  const body = (hw: string, ec: string, decl: string) =>
    `<${hw}:VirtualHardwareSection ${decl}><${hw}:Info>i</${hw}:Info><${ec}:ExtraConfig ${ec}:key="k" ${ec}:value="v"/></${hw}:VirtualHardwareSection>`;

  it('any prefixes bound to the schema namespaces are read; an unbound or misbound one is a 400', () => {
    fc.assert(
      fc.property(prefix, prefix, fc.constantFrom('both', 'no-vmw', 'swapped'), (hw, ec, binding) => {
        fc.pre(hw !== ec);
        const decl =
          binding === 'both'
            ? `xmlns:${hw}="${OVF}" xmlns:${ec}="${VMW}"`
            : binding === 'no-vmw'
              ? `xmlns:${hw}="${OVF}"`
              : `xmlns:${hw}="${VMW}" xmlns:${ec}="${OVF}"`;
        try {
          const node = parseBody(
            Buffer.from(body(hw, ec, decl)),
            'VirtualHardwareSection',
            VIRTUAL_HARDWARE_SECTION,
          );
          return binding === 'both' && node.ns === OVF && node.children[1]?.attrs.key === 'k';
        } catch (e) {
          return binding !== 'both' && e instanceof VcdError && e.status === 400;
        }
      }),
    );
  });
});

describe('metadata domain', () => {
  const node = (domain: string | undefined, visibility: string | undefined): XNode | undefined =>
    domain === undefined
      ? undefined
      : {
          name: 'Domain',
          ns: '',
          attrs: visibility === undefined ? {} : { visibility },
          qualifiedAttrs: [],
          children: [],
          text: domain,
        };
  it('a tenant writes GENERAL with a known visibility; SYSTEM is 403; anything else 400', () => {
    const word = fc.oneof(
      fc.constantFrom('GENERAL', 'SYSTEM', 'READWRITE', 'READONLY', 'PRIVATE', ''),
      fc.string(),
    );
    fc.assert(
      fc.property(
        fc.option(word, { nil: undefined }),
        fc.option(word, { nil: undefined }),
        (domain, visibility) => {
          const d = domain?.trim() || 'GENERAL';
          const v = domain === undefined ? 'READWRITE' : (visibility ?? 'READWRITE'); // no Domain, no visibility
          const known =
            (d === 'GENERAL' || d === 'SYSTEM') && ['READWRITE', 'READONLY', 'PRIVATE'].includes(v);
          try {
            const got = readDomain(node(domain, visibility));
            return known && d === 'GENERAL' && got.domain === 'GENERAL' && got.visibility === v;
          } catch (e) {
            if (!(e instanceof VcdError)) return false;
            return known ? e.status === 403 : e.status === 400;
          }
        },
      ),
    );
  });
});
