import { defineRule } from './rule.js';
import { forEachRepeatedValue, isObj } from './util.js';

const DAY = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export default defineRule({
  meta: { code: 'settings/duplicate-day', severity: 'error', description: 'Each day appears at most once in send_window_days.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const s = a.document?.settings;
      if (!isObj(s) || !Array.isArray(s.send_window_days)) continue;
      const list: unknown[] = s.send_window_days;
      const days = `${a.pointer}/document/settings/send_window_days`;
      forEachRepeatedValue(list, (i, prev) => {
        const d = list[i];
        ctx.report({
          pointer: `${days}/${i}`,
          message: `send_window_days lists ${DAY[d as number] ?? JSON.stringify(d)} (${JSON.stringify(d)}) twice; each day may appear once.`,
          related: [{ pointer: `${days}/${prev}`, message: 'first time' }],
        });
      });
    }
  },
});
