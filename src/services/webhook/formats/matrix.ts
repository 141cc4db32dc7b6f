/**
 * Matrix's room message (Gitea's services/webhook/matrix.go): the HTML text as formatted_body, its
 * Markdown rendering as body, and a push's commits under io.gitea.commits. It is PUT to the hook's
 * URL followed by a transaction id, the SHA-1 of the body, so that a retry is not posted twice.
 */
import crypto from 'node:crypto';
import type { PayloadCommit, PayloadUser } from '../../../api/refs';
import type { User } from '../../../api/user';
import { goTime, pathEscapeSegments, shortRefName, shortSha } from './go';
import {
  type Convertor, commentText, htmlLink, issueText, packageOf, profileUrl, pullText, releaseText, reviewAction, wikiText, workflowJobText,
} from './text';

/** A Matrix hook's meta (message_type 1: m.notice, 2: m.text). */
export interface MatrixMeta { homeserver_url: string; room_id: string; message_type: number }

/** A commit as Gitea writes it back (its struct's field order). */
interface GoCommit {
  id: string; message: string; url: string; author: PayloadUser | null; committer: PayloadUser | null;
  verification: { verified: boolean; reason: string; signature: string; signer: PayloadUser | null; payload: string } | null;
  timestamp: string; added: string[] | null; removed: string[] | null; modified: string[] | null;
}

/** Matrix's message, in Gitea's field order. */
export interface MatrixMessage { body: string; msgtype: string; format: string; formatted_body: string; 'io.gitea.commits'?: GoCommit[] }

/** Gitea's limit of a body, in bytes. */
const SIZE_LIMIT = 64 * 1024;

const MESSAGE_TYPES: Record<number, string> = { 1: 'm.notice', 2: 'm.text' };

const goUser = (u: PayloadUser | null | undefined): PayloadUser | null => (u ? { name: u.name, email: u.email, username: u.username } : null);

function goCommit(c: PayloadCommit): GoCommit {
  const v = c.verification;
  return {
    id: c.id, message: c.message, url: c.url, author: goUser(c.author), committer: goUser(c.committer),
    verification: v ? { verified: v.verified, reason: v.reason, signature: v.signature, signer: goUser(v.signer), payload: v.payload } : null,
    timestamp: goTime(c.timestamp), added: c.added ?? null, removed: c.removed ?? null, modified: c.modified ?? null,
  };
}

/** The Markdown rendering of the HTML text: links as [text](url), line breaks as newlines. */
const messageBody = (html: string) => html.replace(/<a [^>]*?href="([^">]*?)">(.*?)<\/a>/g, '[$2]($1)').replace(/<br>/g, '\n');

/** A link to a ref's tree; a short name (as a create event gives) is taken for a commit, as Gitea does. */
function refLink(repoUrl: string, ref: string): string {
  const kind = ref.startsWith('refs/heads/') ? 'branch' : ref.startsWith('refs/tags/') ? 'tag' : 'commit';
  const name = shortRefName(ref);
  return htmlLink(`${repoUrl}/src/${kind}/${pathEscapeSegments(name)}`, name);
}

/** The Matrix convertor of a hook's meta. */
export function matrix(meta: MatrixMeta): Convertor<MatrixMessage> {
  const msgtype = MESSAGE_TYPES[meta.message_type] ?? '';
  const message = (text: string, commits: PayloadCommit[] = []): MatrixMessage => ({
    body: messageBody(text), msgtype, format: 'org.matrix.custom.html', formatted_body: text,
    ...(commits.length ? { 'io.gitea.commits': commits.map(goCommit) } : {}),
  });
  const repoLink = (r: { html_url: string; full_name: string }) => htmlLink(r.html_url, r.full_name);
  const senderLink = (u: User) => htmlLink(profileUrl(u), u.login);
  return {
    create: (p) => message(`[${repoLink(p.repository)}:${refLink(p.repository.html_url, p.ref)}] ${p.ref_type} created by ${p.sender.login}`),
    delete: (p) => message(`[${repoLink(p.repository)}:${shortRefName(p.ref)}] ${p.ref_type} deleted by ${p.sender.login}`),
    fork: (p) => message(`${repoLink(p.forkee)} is forked to ${repoLink(p.repository)}`),
    push: (p) => {
      const commits = p.commits ?? [];
      const desc = p.total_commits === 1 ? '1 commit' : `${p.total_commits} commits`;
      const head = `[${repoLink(p.repository)}] ${p.pusher.login} pushed ${desc} to ${refLink(p.repository.html_url, p.ref)}:<br>`;
      const lines = commits.map((c) => `${htmlLink(c.url, c.id.slice(0, 7))}: ${c.message} - ${c.author?.name ?? ''}`);
      return message(head + lines.join('<br>'), commits);
    },
    issue: (p) => message(issueText(p, htmlLink, true).text),
    issueComment: (p) => message(commentText(p, htmlLink, true).text),
    pullRequest: (p) => message(pullText(p, htmlLink, true).text),
    review: (p, eventType) => {
      const titleLink = htmlLink(p.pull_request.html_url, `#${p.number} ${p.pull_request.title}`);
      return message(p.action === 'reviewed'
        ? `[${repoLink(p.repository)}] Pull request review ${reviewAction(eventType)}: ${titleLink} by ${senderLink(p.sender)}` : '');
    },
    repository: (p) => message(p.action === 'created' || p.action === 'deleted'
      ? `[${repoLink(p.repository)}] Repository ${p.action} by ${senderLink(p.sender)}` : ''),
    release: (p) => message(releaseText(p, htmlLink, true).text),
    wiki: (p) => message(wikiText(p, htmlLink, true).text),
    pkg: (p) => {
      const pkg = packageOf(p);
      const verb = { created: 'published', deleted: 'deleted' }[p.action];
      return message(verb ? `[${htmlLink(pkg.html_url, pkg.name)}] Package ${verb} by ${senderLink(p.sender)}` : '');
    },
    // why: Gitea's Matrix status line names no sender, unlike the other formats'.
    status: (p) => message(`Commit Status changed: ${htmlLink(p.target_url, `${p.context} [${shortSha(p.sha)}]`)} - ${p.description}`),
    workflowJob: (p) => message(workflowJobText(p, htmlLink, true).text),
  };
}

/** The transaction id of a body (its SHA-1); a body of 64 KiB or more is refused, as Gitea refuses it. */
export function matrixTxnId(body: string): string {
  const size = Buffer.byteLength(body, 'utf8');
  if (size >= SIZE_LIMIT) throw new Error(`getMatrixTxnID: payload size ${size} > ${SIZE_LIMIT}`);
  return crypto.createHash('sha1').update(body, 'utf8').digest('hex');
}
