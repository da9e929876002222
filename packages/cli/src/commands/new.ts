// setup-pack new: scaffold a pack source folder with a fresh packId that builds and validates clean.
import { randomUUID } from 'node:crypto';
import { maxLengthOf } from '@setup-pack/core';
import { basename, resolve } from 'node:path';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { displayPath, notAFolder } from '../lib/files.js';
import { checkPackField } from '../lib/pack-field.js';
import { shellPath } from '../lib/shell.js';
import { unpackToFiles } from '../source/layout.js';
import { isEmptyDir, writeTree } from '../source/tree.js';

export const spec: CommandSpec = {
  name: 'new',
  summary: 'Scaffold a pack source folder with a fresh packId.',
  usage: 'new [options] <dir>',
  description:
    'The folder gets a manifest, one automation, one message template and one tag, and builds without a single diagnostic. Keep the packId for every later release of the pack.',
  positionals: [1, 1],
  options: {
    name: { type: 'string', value: '<name>', description: 'Pack name (default: from the folder name).' },
    author: { type: 'string', value: '<author>', description: 'Pack author.' },
    force: { type: 'boolean', description: 'Write into a folder that is not empty, replacing its pack source files.' },
  },
  examples: [
    ['setup-pack new buyer-nurture', 'Start a new pack in ./buyer-nurture'],
    ['setup-pack new packs/open-house --name "Open house follow-up"', 'Choose the name'],
  ],
};

/** The default name, from the folder's: cut to the schema's limit (in characters, as it counts them). */
function titleCase(dir: string): string {
  const words = basename(dir)
    .replace(/[-_.]+/g, ' ')
    .trim();
  return words
    ? Array.from(words[0].toUpperCase() + words.slice(1))
        .slice(0, maxLengthOf('pack', 'name'))
        .join('')
    : 'New pack';
}

/** The starter pack: small, valid, and showing each file type of the layout. */
export function starterPack(name: string, packId: string, author?: string): Record<string, unknown> {
  return {
    $schema: 'https://setup-pack.dev/schemas/pack.schema.json',
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId,
    name,
    description: 'Welcomes new contacts: tags them and sends a welcome email.',
    ...(author !== undefined ? { author } : {}),
    version: '0.1.0',
    automations: [
      {
        key: 'welcome-new-contact',
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'Welcome new contacts',
          graph: {
            nodes: [
              { id: 'start', kind: 'trigger.contact_created', config: {}, position: { x: 0, y: 0 } },
              { id: 'tag', kind: 'action.add_tag', config: { tag_id: 'tag-new-contact' }, position: { x: 0, y: 120 } },
              { id: 'email', kind: 'action.send_email', config: { template_id: 'welcome-email' }, position: { x: 0, y: 240 } },
            ],
            edges: [
              { id: 'e1', source: 'start', target: 'tag' },
              { id: 'e2', source: 'tag', target: 'email' },
            ],
          },
          settings: { allow_reenrollment: false, stop_on_reply: true, daily_send_limit: 500 },
          references: [
            { type: 'tag', id: 'tag-new-contact' },
            { type: 'email_template', id: 'welcome-email' },
          ],
        },
      },
    ],
    messageTemplates: [
      {
        key: 'welcome-email',
        name: 'Welcome email',
        channel: 'email',
        subject: 'Welcome, {{contact.first_name}}!',
        body: '<p>Hi {{contact.first_name}},</p>\n<p>Thanks for getting in touch. {{owner.first_name}} will reach out soon.</p>\n',
      },
    ],
    resources: [{ key: 'tag-new-contact', kind: 'tag', name: 'New contact' }],
  };
}

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const [dirArg] = args.positionals;
  // The pack schema's rule for each, and only it: a value it refuses is refused here rather than by
  // the first build of the folder (--author) or cut without a word (--name); one it takes (a name of
  // spaces, an empty author) is written as given.
  for (const option of ['name', 'author'] as const) {
    const value = args.values[option];
    if (typeof value === 'string') checkPackField(option, option, value);
  }
  const dir = resolve(ctx.cwd, dirArg);
  const notFolder = notAFolder(dir, dirArg, ctx.cwd);
  if (notFolder) throw new UsageError(notFolder);
  if ((await isEmptyDir(dir)) === false && !args.values.force)
    throw new UsageError(`'${dirArg}' exists and is not empty; choose a new folder or pass --force`);
  const name = typeof args.values.name === 'string' ? args.values.name : titleCase(dir);
  const packId = randomUUID();
  await writeTree(dir, dirArg, unpackToFiles(starterPack(name, packId, args.values.author as string | undefined)));
  const shown = displayPath(dir, ctx.cwd);
  ctx.stdout.write(
    `created ${shown}/ (packId ${packId})\n\nNext:\n  setup-pack build ${shellPath(shown)} -o ${shellPath(`${shown}.json`)}\n`,
  );
  return 0;
}
