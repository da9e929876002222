import { defineRule } from './rule.js';
import { isObj } from './util.js';

export default defineRule({
  meta: {
    code: 'settings/send-window-incomplete',
    severity: 'error',
    description: 'send_window_start and send_window_end are set together.',
  },
  check(ctx) {
    for (const a of ctx.automations()) {
      const s = a.document?.settings;
      if (!isObj(s)) continue;
      const hasStart = typeof s.send_window_start === 'number';
      const hasEnd = typeof s.send_window_end === 'number';
      if (hasStart === hasEnd) continue;
      const [set, missing] = hasStart ? ['send_window_start', 'send_window_end'] : ['send_window_end', 'send_window_start'];
      if (ctx.isBroken(`${a.pointer}/document/settings/${missing}`)) continue;
      ctx.report({
        pointer: `${a.pointer}/document/settings/${set}`,
        message: `${set} is set but ${missing} is not; a send window needs both.`,
        hint: `Set ${missing}, or remove ${set}.`,
      });
    }
  },
});
