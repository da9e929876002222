import { defineRule } from './rule.js';
import { isObj } from './util.js';

const DAY = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export default defineRule({
  meta: { code: 'settings/duplicate-day', severity: 'error', description: 'Each day appears at most once in send_window_days.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const s = a.document?.settings;
      if (!isObj(s) || !Array.isArray(s.send_window_days)) continue;
      const seen = new Map<unknown, number>();
      s.send_window_days.forEach((d, i) => {
        const prev = seen.get(d);
        if (prev === undefined) seen.set(d, i);
        else ctx.report({ pointer: `${a.pointer}/document/settings/send_window_days/${i}`, message: `send_window_days lists ${DAY[d as number] ?? JSON.stringify(d)} (${JSON.stringify(d)}) twice; each day may appear once.`, related: [{ pointer: `${a.pointer}/document/settings/send_window_days/${prev}`, message: 'first time' }] });
      });
    }
  },
});
