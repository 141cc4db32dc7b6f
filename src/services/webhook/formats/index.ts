/**
 * The request bodies of the chat-style hook types, as Gitea 1.24 builds them
 * (services/webhook/*.go): the stored payload read back, turned into the type's message by the
 * convertor method its event maps to (payloader.go), and written as Go writes JSON.
 */
import type {
  CommitStatusPayload, CreatePayload, DeletePayload, ForkPayload, IssueCommentPayload, IssuePayload, PackagePayload, PullRequestPayload,
  PushPayload, ReleasePayload, RepositoryPayload, WikiPayload, WorkflowJobPayload,
} from '../../../api/webhook';
import { goJson } from './go';
import type { Convertor } from './text';
import { slack } from './slack';
import { discord } from './discord';
import { msteams } from './msteams';
import { matrix, matrixTxnId } from './matrix';
import { telegram } from './telegram';
import { dingtalk } from './dingtalk';
import { feishu } from './feishu';
import { wechatwork } from './wechatwork';
import { packagist } from './packagist';

export interface FormattedRequest {
  method: 'POST' | 'PUT';
  /** appended to the hook URL (matrix: '/<txnid>'), else '' */
  urlSuffix: string;
  contentType: string;
  body: string;
}

/** A hook's meta: its JSON object, or an empty one when it is empty or damaged (the API stores none for most types). */
function parseMeta(meta: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(meta);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The convertor of each type, from the hook's meta. */
const CONVERTORS: Record<string, (m: Record<string, unknown>) => Convertor<object>> = {
  slack: (m) => slack({ channel: str(m.channel), username: str(m.username), icon_url: str(m.icon_url), color: str(m.color) }),
  discord: (m) => discord({ username: str(m.username), icon_url: str(m.icon_url) }),
  msteams: () => msteams(),
  matrix: (m) => matrix({ homeserver_url: str(m.homeserver_url), room_id: str(m.room_id), message_type: typeof m.message_type === 'number' ? m.message_type : 0 }),
  telegram: () => telegram(),
  dingtalk: () => dingtalk(),
  feishu: () => feishu(),
  wechatwork: () => wechatwork(),
  packagist: (m) => packagist({ username: str(m.username), api_token: str(m.api_token), package_url: str(m.package_url) }),
};

/**
 * The message of an event (Gitea's newPayload): each event type goes to the convertor method of
 * its payload, the variants of an issue or pull request event with their base event; an event
 * type Gitea 1.24 does not know is an error, as there.
 */
function convert<T>(c: Convertor<T>, eventType: string, payload: unknown): T {
  switch (eventType) {
    case 'create': return c.create(payload as CreatePayload);
    case 'delete': return c.delete(payload as DeletePayload);
    case 'fork': return c.fork(payload as ForkPayload);
    case 'push': return c.push(payload as PushPayload);
    case 'issues': case 'issue_assign': case 'issue_label': case 'issue_milestone':
      return c.issue(payload as IssuePayload);
    case 'issue_comment': case 'pull_request_comment':
      return c.issueComment(payload as IssueCommentPayload);
    case 'pull_request': case 'pull_request_assign': case 'pull_request_label': case 'pull_request_milestone': case 'pull_request_sync':
    case 'pull_request_review_request':
      return c.pullRequest(payload as PullRequestPayload);
    case 'pull_request_review_approved': case 'pull_request_review_rejected': case 'pull_request_review_comment':
      return c.review(payload as PullRequestPayload, eventType);
    case 'repository': return c.repository(payload as RepositoryPayload);
    case 'release': return c.release(payload as ReleasePayload);
    case 'wiki': return c.wiki(payload as WikiPayload);
    case 'package': return c.pkg(payload as PackagePayload);
    case 'status': return c.status(payload as CommitStatusPayload);
    // why: one text for both: a run's payload carries its run where a job's carries its job.
    case 'workflow_job': case 'workflow_run': return c.workflowJob(payload as WorkflowJobPayload);
    default: throw new Error(`newPayload unsupported event: ${eventType}`);
  }
}

/**
 * The request of a hook of `type` for an event: JSON as Gitea writes it, POSTed, except Matrix's,
 * PUT to a transaction id; null when the type has no format of its own (gitea, gogs). Throws where
 * Gitea fails the delivery: an unreadable payload, an event type it does not know, a Matrix body of
 * 64 KiB or more.
 */
export function formatRequest(type: string, meta: string, eventType: string, payload: string): FormattedRequest | null {
  if (!Object.hasOwn(CONVERTORS, type)) return null;
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch (e) {
    throw new Error(`could not unmarshal payload: ${(e as Error).message}`);
  }
  const body = goJson(convert(CONVERTORS[type](parseMeta(meta)), eventType, data));
  if (type === 'matrix') return { method: 'PUT', urlSuffix: `/${matrixTxnId(body)}`, contentType: 'application/json', body };
  return { method: 'POST', urlSuffix: '', contentType: 'application/json', body };
}
