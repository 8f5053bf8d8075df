import { describe, expect, it } from 'vitest';
import { ConfigMap } from '../../../src/client/builtin.js';
import { ManualClock } from '../../../src/testing/index.js';
import { ProtobufDecodeError } from '../../../src/transport/protobuf/wire.js';
import {
  JSON_ONLY,
  schemaCovers,
  serverRelease,
  WireChoice,
} from '../../../src/transport/protobuf/wire-choice.js';
import { WatchDecodeError } from '../../../src/transport/watch-decoder.js';
import { Widget } from '../local-server.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf, application/json';

describe('choosing the encoding', () => {
  it('reads the release from /version, gitVersion first', () => {
    expect(serverRelease({ major: '1', minor: '35', gitVersion: 'v1.35.4' })).toEqual([1, 35]);
    expect(serverRelease({ major: '1', minor: '36+', gitVersion: 'custom' })).toEqual([1, 36]);
    expect(serverRelease({ gitVersion: 'v1.33.0-eks-1' })).toEqual([1, 33]);
    expect(serverRelease({ kind: 'ConfigMap' })).toBeUndefined();
    expect(serverRelease(undefined)).toBeUndefined();
  });

  it('trusts the schema for servers of its release and older, not newer', () => {
    expect(schemaCovers([1, 35], '1.35')).toBe(true);
    expect(schemaCovers([1, 20], '1.35')).toBe(true);
    expect(schemaCovers([1, 36], '1.35')).toBe(false);
    expect(schemaCovers([2, 0], '1.35')).toBe(false);
  });

  it('asks for protobuf for a built-in kind on a covered server, JSON for the rest', async () => {
    let asked = 0;
    const choice = new WireChoice(
      true,
      async () => {
        asked++;
        return { gitVersion: 'v1.30.1' };
      },
      new ManualClock(),
    );
    expect(await choice.accept(ConfigMap)).toBe(PROTOBUF);
    expect(await choice.accept(Widget)).toBe(JSON_ONLY);
    expect(await choice.accept(ConfigMap)).toBe(PROTOBUF);
    expect(asked).toBe(1);
    choice.refuse(ConfigMap);
    expect(await choice.accept(ConfigMap)).toBe(JSON_ONLY);
  });

  it('sends a kind to JSON when its watch ends on unreadable protobuf, not on other errors', async () => {
    const choice = new WireChoice(true, async () => ({ gitVersion: 'v1.35.0' }), new ManualClock());
    const closes: Array<Error | undefined> = [];
    const callbacks = choice.watching(ConfigMap, { onEvent: () => {}, onClose: (e) => closes.push(e) });
    callbacks.onClose(new Error('connection reset'));
    expect(await choice.accept(ConfigMap)).toBe(PROTOBUF);
    const unreadable = new WatchDecodeError('malformed event', {
      cause: new ProtobufDecodeError('field 40'),
    });
    callbacks.onClose(unreadable);
    expect(await choice.accept(ConfigMap)).toBe(JSON_ONLY);
    expect(closes).toHaveLength(2);
    expect(closes[1]).toBe(unreadable);
  });

  it('uses JSON with a newer server, and without protobuf enabled', async () => {
    const clock = new ManualClock();
    expect(await new WireChoice(true, async () => ({ gitVersion: 'v1.99.0' }), clock).accept(ConfigMap)).toBe(
      JSON_ONLY,
    );
    expect(
      await new WireChoice(false, async () => ({ gitVersion: 'v1.30.0' }), clock).accept(ConfigMap),
    ).toBe(JSON_ONLY);
  });

  it('uses JSON while /version fails, and asks again a minute later', async () => {
    const clock = new ManualClock();
    let fail = true;
    const choice = new WireChoice(
      true,
      async () => {
        if (fail) throw new Error('forbidden');
        return { gitVersion: 'v1.35.0' };
      },
      clock,
    );
    expect(await choice.accept(ConfigMap)).toBe(JSON_ONLY);
    fail = false;
    expect(await choice.accept(ConfigMap)).toBe(JSON_ONLY);
    clock.advance(60_000);
    expect(await choice.accept(ConfigMap)).toBe(PROTOBUF);
  });
});
