// setup-pack simulate as a real subprocess: the timeline in words and as JSON (checked against its
// published schema), the loop it stops at, and clear errors naming the option.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { FIXTURES, readJson, ROOT, run, tempDir } from './helpers.js';

const DEMO = join(FIXTURES, 'valid/buyer-lead-starter.json');
const LOOP = join(FIXTURES, 'invalid/flow-cascade-loop.json');
const AT = ['--at', '2026-10-30T18:45:00-04:00', '--time-zone', 'America/New_York'];

describe('setup-pack simulate', () => {
  it("prints the demo pack's timeline day by day, with the held email and the summary", () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'rosa.json'), JSON.stringify({ first_name: 'Rosa', last_name: 'Diaz', tags: [] }));
    const r = run(['simulate', DEMO, '--event', 'contact_created', '--contact', 'rosa.json', ...AT], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(
      'Buyer Lead Starter 1.0.0 · Rosa Diaz · contact_created at 2026-10-30T18:45:00-04:00 (America/New_York), 30 days',
    );
    expect(lines).toContain('Fri 2026-10-30');
    expect(lines).toContain('Mon 2026-11-02');
    expect(r.stdout).toMatch(
      /^ {2}09:00 {2}New lead welcome › email {2}sends an email to Rosa Diaz \(Template: Follow-up email\), held to the send window from 2026-10-31T18:45:00-04:00$/m,
    );
    expect(lines).toContain('Summary: Rosa Diaz gets 1 SMS in the first 24 h, 1 email and 1 SMS in the first 7 days.');
  });

  it('--format json is the documented, versioned timeline; the loop fixture stops at its loop and exits 1', () => {
    const check = (addFormats as unknown as (a: unknown) => unknown)(
      new (Ajv2020 as unknown as new (o: object) => { compile(s: unknown): ((v: unknown) => boolean) & { errors?: unknown } })({
        allErrors: true,
      }),
    ) as { compile(s: unknown): ((v: unknown) => boolean) & { errors?: unknown } };
    const validate = check.compile(readJson(join(ROOT, 'packages/cli/schema/simulate-timeline.schema.json')));
    const demo = run(['simulate', DEMO, '--event', 'stage_changed', '--stage', 'Nurture', '--format', 'json', ...AT]);
    expect(demo.code).toBe(0);
    const timeline = JSON.parse(demo.stdout);
    expect(validate(timeline), JSON.stringify(validate.errors)).toBe(true);
    expect(timeline).toMatchObject({
      version: 2,
      start: { event: 'stage_changed', subject: 'stage-nurture', contact: 'Sam Sample' },
      ended: 'done',
    });
    // The AI branch cannot be decided: two paths, the second forked after the first's two steps.
    expect(timeline.paths.map((x: { choices: string[]; forkOf?: object }) => [x.choices, x.forkOf])).toEqual([
      [['AI in "ai" of "Stage nurture" chooses ready'], undefined],
      [['AI in "ai" of "Stage nurture" chooses later'], { path: 0, steps: 2 }],
    ]);
    const loop = run(['simulate', LOOP, '--event', 'contact_created', ...AT]);
    expect(loop.code).toBe(1);
    expect(loop.stdout).toMatch(
      /^loop: Sam Sample is back in the state of 2026-10-30T18:45:00-04:00: "Warm lead" → "Hot lead" → "Warm lead" repeats every moment, without pause, and each turn sends 1 email$/m,
    );
    const json = run(['simulate', LOOP, '--event', 'contact_created', '--format', 'json', ...AT]);
    expect(validate(JSON.parse(json.stdout)), JSON.stringify(validate.errors)).toBe(true);
    // A reply before the email: the welcome ends (stop on reply), and the timeline says so.
    const replied = run([
      'simulate',
      DEMO,
      '--event',
      'contact_created',
      '--reply-at',
      '2026-10-30T19:10:00-04:00',
      '--format',
      'json',
      ...AT,
    ]);
    const withReply = JSON.parse(replied.stdout);
    expect(validate(withReply), JSON.stringify(validate.errors)).toBe(true);
    expect(withReply.start.replyAt).toBe('2026-10-30T19:10:00-04:00');
    expect(withReply.paths[0].steps.map((s: { does: string }) => s.does)).toContain(
      'Sam Sample replies to the SMS sent at 2026-10-30T18:45:00-04:00: "New lead welcome" ends (stop on reply)',
    );
  });

  it('prints each path of a forked timeline under its choices, a forked path from where it forks', () => {
    const r = run(['simulate', DEMO, '--event', 'stage_changed', '--stage', 'Nurture', ...AT]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('Path 1 of 2: AI in "ai" of "Stage nurture" chooses ready');
    expect(lines).toContain('Path 2 of 2: AI in "ai" of "Stage nurture" chooses later (as path 1 up to ai at 2026-10-30 18:45)');
    expect(lines).toContain(
      '  18:45  Stage nurture › ai  cannot be decided for this contact: the timeline forks (ready, later) → ready on path 1, later on path 2',
    );
    // The second path shows only its own step, not the two it shares with the first.
    const second = lines.slice(
      lines.indexOf('Path 2 of 2: AI in "ai" of "Stage nurture" chooses later (as path 1 up to ai at 2026-10-30 18:45)'),
    );
    expect(second.filter((l) => l.startsWith('  18:45'))).toEqual([
      '  18:45  Stage nurture › note  Add note (Note: Not ready yet; keep nurturing.)',
    ]);
    expect(lines).toContain('Summary: Sam Sample gets no message in the first 24 h, no message in the first 7 days, on 2 paths.');
  });

  it('says what it cannot read, naming the option, with exit 2', () => {
    const cases: [string[], string][] = [
      [['--event', 'tag_add'], 'setup-pack simulate: --event: "tag_add" is not an event the simulator knows; did you mean tag_added?'],
      [
        ['--event', 'tag_added', '--tag', 'tag-hots'],
        'setup-pack simulate: --tag: tag "tag-hots" is not in the pack; did you mean "tag-hot"? (it has: tag-buyer-lead ("Buyer lead"), tag-hot ("Hot lead"))',
      ],
      [
        ['--event', 'tag_added', '--stage', 'Nurture'],
        'setup-pack simulate: --stage does not go with --event tag_added, which names a tag: give --tag',
      ],
      [
        ['--event', 'contact_created', '--at', 'tomorrow'],
        'setup-pack simulate: --at: "tomorrow" is not an RFC 3339 date and time with its offset (e.g. 2026-12-04T18:45:00-05:00)',
      ],
      [
        ['--event', 'contact_created', '--contact', join(ROOT, 'package.json')],
        `setup-pack simulate: --contact ${join(ROOT, 'package.json')}: first_name: no first_name (a string), so it is not a contact (GET /v1/contacts/{id} gives one)`,
      ],
      [
        ['--event', 'contact_created', '--at', '2026-10-30T18:45:00-04:00', '--reply-at', '2026-10-30T18:00:00-04:00'],
        'setup-pack simulate: --reply-at: the reply (2026-10-30T18:00:00-04:00) comes before the event (2026-10-30T18:45:00-04:00)',
      ],
      [[], 'setup-pack simulate: --event is required'],
    ];
    for (const [args, said] of cases) {
      const r = run(['simulate', DEMO, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.startsWith(said), r.stderr).toBe(true);
    }
  });
});
