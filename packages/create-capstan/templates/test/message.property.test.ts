/** The pure decisions, held for any Widget (fast-check draws them). */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { messageConfigMap } from '../src/decide/message.js';

const widget = fc.record({
  name: fc.stringMatching(/^[a-z]([a-z0-9-]{0,40}[a-z0-9])?$/),
  message: fc.string(),
});

it("names a Widget's ConfigMap after it and holds exactly its message", () => {
  fc.assert(
    fc.property(widget, ({ name, message }) => {
      const cm = messageConfigMap({ metadata: { name }, spec: { message } });
      expect(cm.name).toBe(`${name}-message`);
      expect(cm.data).toEqual({ message });
    }),
  );
});

it('gives two different Widgets two different ConfigMaps', () => {
  fc.assert(
    fc.property(widget, widget, (a, b) => {
      fc.pre(a.name !== b.name);
      const one = messageConfigMap({ metadata: { name: a.name }, spec: { message: a.message } });
      const two = messageConfigMap({ metadata: { name: b.name }, spec: { message: b.message } });
      expect(one.name).not.toBe(two.name);
    }),
  );
});
