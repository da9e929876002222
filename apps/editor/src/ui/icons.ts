// An icon for every block kind of core's node catalog, and one per category, from lucide: the one
// place a kind's picture is chosen. The block cards, the palette and the inspector all read it, so
// a kind looks the same wherever an author meets it. A test checks that every catalog kind has one.
import type { LucideIcon } from 'lucide-react';
import {
  AlarmClock, ArrowRightLeft, Ban, Bell, BookmarkPlus, BrainCircuit, BriefcaseBusiness, CalendarCheck, CalendarClock,
  CalendarDays, CalendarOff, CalendarPlus, CalendarX, CircleArrowRight, CircleHelp, CirclePlay, CirclePlus, CircleStop,
  ClipboardList, Clock, Eraser, Eye, FileCheck, FileClock, FilePen, FilePlus, FileX, Flag, GitBranch, Globe, Hand,
  Handshake, Heart, Hourglass, House, KeyRound, ListMinus, ListPlus, ListTodo, Mail, MailCheck, MailOpen, MailX,
  MessageSquare, MessageSquareText, MousePointerClick, MoveRight, Newspaper, PencilLine, Play, Repeat, Reply, ScanText,
  Sparkles, Split, SquareCheck, StickyNote, Tag, Timer, Trophy, ThumbsDown, UserCheck, UserCog, UserMinus, UserPen,
  UserPlus, UserRoundPlus, Users, Waves, Webhook, Zap,
} from 'lucide-react';

export type BlockGroup = 'trigger' | 'action' | 'control' | 'unknown';

/** Each category's icon: what a kind without one of its own, and the palette's headings, show. */
export const GROUP_ICONS: Record<BlockGroup, LucideIcon> = { trigger: Zap, action: Play, control: GitBranch, unknown: CircleHelp };

/** Each block kind's icon, by the catalog's kind. */
export const KIND_ICONS: Readonly<Record<string, LucideIcon>> = {
  'trigger.transaction_created': FilePlus,
  'trigger.transaction_status_changed': FileClock,
  'trigger.transaction_closed': FileCheck,
  'trigger.transaction_fell_through': FileX,
  'trigger.contact_created': UserPlus,
  'trigger.tag_added': Tag,
  'trigger.stage_changed': ArrowRightLeft,
  'trigger.contact_field_changed': UserPen,
  'trigger.sms_received': MessageSquareText,
  'trigger.manual': Hand,
  'trigger.website_form_submitted': ClipboardList,
  'trigger.website_visit': Globe,
  'trigger.listing_viewed': Eye,
  'trigger.consumer_registered': UserCheck,
  'trigger.listing_favorited': Heart,
  'trigger.search_saved': BookmarkPlus,
  'trigger.newsletter_signup': Newspaper,
  'trigger.listing_match': House,
  'trigger.date_reached': CalendarDays,
  'trigger.schedule': Clock,
  'trigger.webhook_received': Webhook,
  'trigger.task_completed': SquareCheck,
  'trigger.task_overdue': AlarmClock,
  'trigger.appointment_scheduled': CalendarPlus,
  'trigger.appointment_upcoming': CalendarClock,
  'trigger.appointment_completed': CalendarCheck,
  'trigger.appointment_cancelled': CalendarX,
  'trigger.appointment_no_show': CalendarOff,
  'trigger.showing_requested': KeyRound,
  'trigger.meeting_booked': Handshake,
  'trigger.email_opened': MailOpen,
  'trigger.email_clicked': MousePointerClick,
  'trigger.email_bounced': MailX,
  'trigger.email_replied': Reply,
  'trigger.deal_created': BriefcaseBusiness,
  'trigger.deal_stage_changed': MoveRight,
  'trigger.deal_won': Trophy,
  'trigger.deal_lost': ThumbsDown,
  'trigger.deal_stuck_in_stage': Hourglass,
  'trigger.program_subscribed': ListPlus,
  'trigger.program_unsubscribed': ListMinus,
  'action.create_transaction': FilePen,
  'action.send_sms': MessageSquare,
  'action.send_email': Mail,
  'action.create_task': ListTodo,
  'action.add_tag': Tag,
  'action.set_field': PencilLine,
  'action.mark_do_not_contact': Ban,
  'action.set_email_subscription': MailCheck,
  'action.remove_tag': Eraser,
  'action.set_stage': Flag,
  'action.create_deal': CirclePlus,
  'action.move_deal_stage': CircleArrowRight,
  'action.assign_owner': UserCog,
  'action.return_to_pond': Waves,
  'action.set_relationship': Users,
  'action.add_collaborator': UserRoundPlus,
  'action.remove_collaborator': UserMinus,
  'action.run_automation': CirclePlay,
  'action.stop_automations': CircleStop,
  'action.add_note': StickyNote,
  'action.ai_extract': ScanText,
  'action.ai_message': Sparkles,
  'action.webhook': Webhook,
  'action.notify': Bell,
  'control.wait': Timer,
  'control.if': Split,
  'control.ai_branch': BrainCircuit,
  'control.loop': Repeat,
};

const isGroup = (g: string): g is BlockGroup => g in GROUP_ICONS;

/** The icon of a block of `kind` in `group`: its own, else its category's. */
export function blockIcon(kind: string, group: string): LucideIcon {
  return KIND_ICONS[kind] ?? GROUP_ICONS[isGroup(group) ? group : 'unknown'];
}
