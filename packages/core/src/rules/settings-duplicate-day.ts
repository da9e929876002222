import { defineRule } from './rule.js';
import { forEachRepeat, isObj } from './util.js';

const DAY = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export default defineRule({
  meta: { code: 'settings/duplicate-day', severity: 'error', description: 'Each day appears at most once in send_window_days.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const s = a.document?.settings;
      if (!isObj(s) || !Array.isArray(s.send_window_days)) continue;
      const days = `${a.pointer}/document/settings/send_window_days`;
      forEachRepeat(s.send_window_days.map((d, i) => [d, i] as const), ([d]) => d, ([d, i], [, prev]) =>
        ctx.report({ pointer: `${days}/${i}`, message: `send_window_days lists ${DAY[d as number] ?? JSON.stringify(d)} (${JSON.stringify(d)}) twice; each day may appear once.`, related: [{ pointer: `${days}/${prev}`, message: 'first time' }] }),
      );
    }
  },
});
