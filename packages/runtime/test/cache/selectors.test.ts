import { describe, expect, it } from 'vitest';
import { parseFieldSelector, parseLabelSelector, SelectorParseError } from '../../src/client/selectors.js';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', 'example.com/owner': 'me' };

  it.each([
    ['', true],
    ['app=web', true],
    ['app==web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true],
    ['tier in (front, back)', true],
    ['tier notin (front)', false],
    ['missing notin (a)', true],
    ['missing in (a)', false],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['example.com/owner=me', true],
    ['app=web,tier in (back),!missing', false],
    ['app=web, tier in (front,back), !missing', true],
  ])('%s → %s', (selector, expected) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });

  it('treats missing labels as empty', () => {
    expect(parseLabelSelector('app').matches(undefined)).toBe(false);
    expect(parseLabelSelector('!app').matches(undefined)).toBe(true);
  });

  it('prints a canonical form', () => {
    expect(parseLabelSelector(' app == web , tier in (b,a), !x ').toString()).toBe(
      'app=web,tier in (a,b),!x',
    );
  });

  it.each([
    'app in (',
    'app in ()',
    'a b',
    '=x',
    'app=web,',
    'app=in valid',
    'bad key=1',
    'app=-x-',
    'UPPER.com/x=1',
    'app>1',
  ])('rejects %s', (selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(SelectorParseError);
  });
});

describe('field selectors', () => {
  const obj = {
    metadata: { name: 'a', namespace: 'ns' },
    status: { phase: 'Running', ready: true },
    spec: { replicas: 3 },
  };

  it.each([
    ['metadata.name=a', true],
    ['metadata.name==a', true],
    ['metadata.name!=a', false],
    ['metadata.namespace=ns,status.phase=Running', true],
    ['status.ready=true', true],
    ['spec.replicas=3', true],
    ['spec.missing=', true],
    ['spec.missing!=x', true],
  ])('%s → %s', (selector, expected) => {
    expect(parseFieldSelector(selector).matches(obj)).toBe(expected);
  });

  it('supports escaped values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b').matches({ metadata: { name: 'a,b' } })).toBe(true);
  });

  it.each(['metadata.name', 'metadata..name=a', '=a', 'a b=c'])('rejects %s', (selector) => {
    expect(() => parseFieldSelector(selector)).toThrow(SelectorParseError);
  });
});
