import { defineRule } from './rule.js';
import { isObj } from './util.js';

export default defineRule({
  meta: { code: 'settings/send-window-empty', severity: 'error', description: 'send_window_end differs from send_window_start.' },
  check(ctx) {
    for (const a of ctx.automations()) {
      const s = a.document?.settings;
      if (!isObj(s) || typeof s.send_window_start !== 'number' || s.send_window_start !== s.send_window_end) continue;
      ctx.report({
        pointer: `${a.pointer}/document/settings/send_window_end`,
        message: `send_window_end equals send_window_start (${s.send_window_start}); the window would be empty, so they must differ.`,
      });
    }
  },
});
