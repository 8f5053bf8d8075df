/**
 * `vmNamingTemplate` as CAPVCD reads it: Go's text/template with sprig, over `.machine` and
 * `.vcdMachine` (Go field names or JSON names); the supported functions each checked against
 * sprig's definition; anything else (a parse error, an unknown or unstable function, a name that
 * is not a DNS label) an error message, never a throw.
 */
import type { KubeObject } from '@capstan/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { vmNameFor } from '../src/index.js';
import { FUNCTIONS, sprintf } from '../src/template/functions.js';
import { execute } from '../src/template/go-template.js';

const machine: KubeObject = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'c1-md-0-abcde-x7k2p', namespace: 'ns', labels: { pool: 'gpu' } },
  spec: { clusterName: 'c1', failureDomain: 'zone-1' },
} as KubeObject;
const vcdMachine: KubeObject = {
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta3',
  kind: 'VCDMachine',
  metadata: { name: 'c1-md-0-xyz', namespace: 'ns' },
  spec: { catalog: 'templates', template: 'ubuntu-2404' },
} as KubeObject;
const input = { cluster: 'c1', machine, vcdMachine };
const name = (template: string) => vmNameFor(template, input);

describe('vmNamingTemplate', () => {
  it('without a template ("" too, as CAPVCD), names the VM after the VCDMachine', () => {
    expect(vmNameFor(undefined, input)).toEqual({ name: 'c1-md-0-xyz' });
    expect(vmNameFor('', input)).toEqual({ name: 'c1-md-0-xyz' });
  });

  it('reads CAPVCD’s Go field names and this provider’s JSON names', () => {
    expect(name('{{ .machine.Name | trunc 10 }}')).toEqual({ name: 'c1-md-0-ab' });
    expect(name('{{ .machine.Spec.ClusterName }}-{{ .vcdMachine.ObjectMeta.Name }}')).toEqual({
      name: 'c1-c1-md-0-xyz',
    });
    expect(name('{{ .cluster.name }}-{{.machine.name}}')).toEqual({ name: 'c1-c1-md-0-abcde-x7k2p' });
    expect(name('{{ index .machine.Labels "pool" }}-{{ .vcdMachine.Spec.Template }}')).toEqual({
      name: 'gpu-ubuntu-2404',
    });
  });

  it('runs the sprig functions names are made with', () => {
    expect(name('{{ .machine.Name | trimSuffix "-x7k2p" | replace "md" "w" }}')).toEqual({
      name: 'c1-w-0-abcde',
    });
    expect(name('{{ printf "%s-%03d" .machine.Spec.ClusterName 7 }}')).toEqual({ name: 'c1-007' });
    expect(name('{{ "VM-" | lower }}{{ .machine.Name | sha256sum | trunc 8 }}')).toEqual({
      name: 'vm-3f045f82', // sha256sum(1) of the name,
    });
    expect(name('{{- " x " | trim -}} {{ .machine.Spec.Missing | default "dflt" }}')).toEqual({
      name: 'xdflt',
    });
    expect(name('{{/* CAPVCD comment */}}{{ (.machine.Name | upper) | lower | trunc -5 }}')).toEqual({
      name: 'x7k2p',
    });
  });

  it('refuses what it cannot run, naming it', () => {
    const error = (t: string) => (name(t) as { error: string }).error;
    expect(error('{{ randAlphaNum 5 }}')).toMatch(/randAlphaNum is refused: a VM's name must be the same/);
    expect(error('{{ .machine.Name | frobnicate }}')).toMatch(
      /function "frobnicate" is not supported \(supported: .*trunc/,
    );
    expect(error('{{ if .machine }}x{{ end }}')).toMatch(/\{\{ if \}\} is not supported/);
    expect(error('{{ .machine.Name')).toMatch(/unclosed action/);
    expect(error('{{ $x := 1 }}')).toMatch(/variables are not supported/);
    expect(error('{{ trunc "ten" .machine.Name }}')).toMatch(/trunc: wants an integer/);
    expect(error('{{ .machine.Nope }}')).toMatch(
      /"<no value>" is not a DNS label.*no value for \.machine\.Nope/,
    );
    expect(error('{{ .machine.Name | upper }}')).toMatch(/not a DNS label/);
    expect(error('x{{ .machine.Name }}{{ .machine.Name }}{{ .machine.Name }}{{ .machine.Name }}')).toMatch(
      /at most 63/,
    );
  });

  it('never throws, whatever the template', () => {
    const pieces = fc.constantFrom(
      '{{',
      '}}',
      '{{-',
      '-}}',
      '|',
      '(',
      ')',
      '"',
      '`',
      '.machine.Name',
      ' trunc ',
      ' 3',
      '$',
      'x',
      ' ',
      '/*',
      '*/',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(pieces, { maxLength: 12 }).map((a) => a.join('')),
        ),
        (t) => {
          const out = vmNameFor(t, input);
          expect('name' in out || 'error' in out).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('gives text without actions back as it is', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('{{') && !s.includes('}}')),
        (s) => {
          expect(execute(s, {}).text).toBe(s);
        },
      ),
    );
  });

  it('pipes a value as the last argument: {{ x | f a }} is {{ f a x }}', () => {
    const word = fc.stringMatching(/^[a-z0-9-]{0,20}$/);
    fc.assert(
      fc.property(word, fc.integer({ min: -25, max: 25 }), word, word, (s, n, a, b) => {
        const data = { s };
        expect(execute(`{{ .s | trunc ${n} }}`, data).text).toBe(execute(`{{ trunc ${n} .s }}`, data).text);
        expect(execute(`{{ .s | replace "${a}" "${b}" }}`, data).text).toBe(
          execute(`{{ replace "${a}" "${b}" .s }}`, data).text,
        );
      }),
    );
  });
});

describe('the sprig functions, as sprig defines them', () => {
  const call = (fn: string, ...args: unknown[]) => (FUNCTIONS[fn] as (a: unknown[]) => unknown)(args);
  it('trunc keeps the first n (n < 0: the last -n) characters', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: -30, max: 30 }), (s, n) => {
        const out = call('trunc', n, s) as string;
        if (n >= 0) expect(out).toBe(s.slice(0, n));
        else expect(out).toBe(s.length + n > 0 ? s.slice(s.length + n) : s);
      }),
    );
  });
  it('substr, trimPrefix, trimSuffix, trimAll, replace, nospace, cat, default', () => {
    expect(call('substr', 1, 3, 'abcdef')).toBe('bc');
    expect(call('substr', -1, 3, 'abcdef')).toBe('abc');
    expect(call('substr', 2, 99, 'abcdef')).toBe('cdef');
    expect(call('trimPrefix', 'ab', 'abab')).toBe('ab');
    expect(call('trimSuffix', '', 'ab')).toBe('ab');
    expect(call('trimAll', '-$', '$-a-b-$')).toBe('a-b');
    expect(call('replace', '-', '', 'a-b-c')).toBe('abc');
    expect(call('nospace', ' a b\tc ')).toBe('abc');
    expect(call('cat', 'a', null, 'b')).toBe('a b');
    expect(call('default', 'd', '')).toBe('d');
    expect(call('default', 'd', 'v')).toBe('v');
    expect(call('adler32sum', 'Wikipedia')).toBe('300286872');
    expect(call('sha1sum', 'abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
  });
  it('lower and upper agree with the strings’ own case mapping', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(call('lower', s)).toBe(s.toLowerCase());
        expect(call('upper', s)).toBe(s.toUpperCase());
      }),
    );
  });
  it('printf formats %s %d %x %q %v %% with width and zero padding', () => {
    expect(sprintf('%s-%05d-%x-%q-%v-%%', ['a', 42, 255, 'q', true])).toBe('a-00042-ff-"q"-true-%');
    expect(sprintf('%-4s|%4s', ['ab', 'cd'])).toBe('ab  |  cd');
    expect(sprintf('%s %s', ['a'])).toBe('a %!s(MISSING)');
  });
});
