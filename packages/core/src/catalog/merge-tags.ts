// The merge tags we propose: `{{scope.field}}` in a message template's body or subject, filled in
// when the message is sent. The spec says a body has merge tags and shows none, so this list is
// what editors offer and explain (completion, hover, docs/catalog.md), never a rule: a tag that is
// not here is not a finding, because a workspace may define more.
// docs/catalog.md's "Merge tags" section is generated from this table.

export type MergeTagScope = 'contact' | 'owner' | 'workspace' | 'listing' | 'search' | 'appointment' | 'transaction' | 'message';

export interface MergeTagInfo {
  /** What goes between the braces: `contact.first_name`. */
  tag: string;
  scope: MergeTagScope;
  label: string;
  description: string;
}

/** Where each scope's values come from, in words. */
export const MERGE_TAG_SCOPES: Readonly<Record<MergeTagScope, string>> = {
  contact: 'The contact the message goes to.',
  owner: "The contact's assigned agent (the workspace's owner when none is assigned).",
  workspace: 'The workspace sending the message, as its brand names it.',
  listing: 'The listing the run started on (listing viewed, favorited or matched); empty otherwise.',
  search: 'The saved search the run started on (search saved, listing match); empty otherwise.',
  appointment: 'The appointment the run started on (appointment triggers); empty otherwise.',
  transaction: 'The transaction the run started on (transaction triggers); empty otherwise.',
  message: 'The message itself.',
};

type Row = [field: string, label: string, description: string];

const rows: Record<MergeTagScope, Row[]> = {
  contact: [
    ['first_name', 'First name', "The contact's first name."],
    ['last_name', 'Last name', "The contact's last name."],
    ['full_name', 'Full name', 'First and last name, separated by a space.'],
    ['email', 'Email', "The contact's primary email address."],
    ['phone', 'Phone', "The contact's primary phone number."],
  ],
  owner: [
    ['first_name', 'Agent first name', "The agent's first name."],
    ['last_name', 'Agent last name', "The agent's last name."],
    ['full_name', 'Agent full name', "The agent's first and last name."],
    ['email', 'Agent email', "The agent's email address."],
    ['phone', 'Agent phone', "The agent's phone number."],
    ['signature', 'Agent signature', "The agent's email signature (plain text in an SMS)."],
  ],
  workspace: [
    ['name', 'Business name', "The brand's business name."],
    ['website', 'Website', "The brand's website address."],
    ['phone', 'Business phone', "The brand's phone number."],
  ],
  listing: [
    ['address', 'Listing address', "The listing's street address."],
    ['price', 'Listing price', "The listing's price, formatted in the workspace's currency."],
    ['url', 'Listing link', "The listing's page on the website."],
    ['views_7d', 'Views in 7 days', 'How often the contact viewed the listing in the last 7 days.'],
  ],
  search: [
    ['name', 'Search name', 'The name the contact gave the saved search.'],
    ['url', 'Search link', "The saved search's results on the website."],
  ],
  appointment: [
    ['date', 'Appointment date', "The appointment's date, in the workspace's time zone."],
    ['time', 'Appointment time', "The appointment's start time, in the workspace's time zone."],
    ['type', 'Appointment type', "The appointment type's name."],
    ['location', 'Appointment location', 'Where the appointment takes place.'],
  ],
  transaction: [
    ['address', 'Property address', "The transaction's property address."],
    ['status', 'Transaction status', "The transaction's status (active, pending, closed, fell through)."],
    ['closing_date', 'Closing date', "The transaction's expected or actual closing date."],
  ],
  message: [['unsubscribe_url', 'Unsubscribe link', 'A link that turns off the email subscription of the contact (emails only).']],
};

export const MERGE_TAGS: readonly MergeTagInfo[] = (Object.keys(rows) as MergeTagScope[]).flatMap((scope) =>
  rows[scope].map(([field, label, description]) => ({ tag: `${scope}.${field}`, scope, label, description })),
);

const byTag = new Map(MERGE_TAGS.map((t) => [t.tag, t]));

/** The tag's entry, when it is one we propose. */
export const mergeTagInfo = (tag: string): MergeTagInfo | undefined => byTag.get(tag.trim());

/** What may stand between the braces of a tag: letters, digits, `_` and `.` (spaces around allowed). */
export const MERGE_TAG_PATTERN = /\{\{\s*([A-Za-z_][\w.]*)\s*\}\}/g;
