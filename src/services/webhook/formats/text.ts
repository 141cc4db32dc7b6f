/**
 * The texts the chat formats share (Gitea's services/webhook/general.go): one line per event with
 * links drawn by a link formatter (none, HTML, Slack), an optional extra text (a body) and a color.
 * Profile links are the users' html_url: Gitea's AppURL followed by the escaped name.
 */
import type {
  CommitStatusPayload, CreatePayload, DeletePayload, ForkPayload, IssueCommentPayload, IssuePayload, PackagePayload, PullRequestPayload,
  PushPayload, ReleasePayload, RepositoryPayload, WikiPayload, WorkflowJobPayload,
} from '../../../api/webhook';
import type { User } from '../../../api/user';
import { htmlEscape, pathEscape, pathEscapeSegments, shortRefName, shortSha } from './go';

/**
 * What a format builds for each kind of payload (Gitea's payloadConvertor): the body as an object
 * in the field order of Gitea's struct. `review` takes the review event type (approved, rejected, comment).
 */
export interface Convertor<T> {
  create(p: CreatePayload): T; delete(p: DeletePayload): T; fork(p: ForkPayload): T; push(p: PushPayload): T;
  issue(p: IssuePayload): T; issueComment(p: IssueCommentPayload): T; pullRequest(p: PullRequestPayload): T;
  review(p: PullRequestPayload, eventType: string): T; repository(p: RepositoryPayload): T; release(p: ReleasePayload): T;
  wiki(p: WikiPayload): T; pkg(p: PackagePayload): T; status(p: CommitStatusPayload): T; workflowJob(p: WorkflowJobPayload): T;
}

/** Draws a link to `url` with `text`. */
export type Link = (url: string, text: string) => string;

/** No link: the text alone. */
export const noLink: Link = (_url, text) => text;

/** An HTML link, both parts escaped. */
export const htmlLink: Link = (url, text) => `<a href="${htmlEscape(url)}">${htmlEscape(text)}</a>`;

/** Gitea's colors, as the integers Discord takes (the others print them in hex). */
export const COLOR = {
  green: 0x1ac600, greenLight: 0xbfe5bf, yellow: 0xffd930, grey: 0x4f545c, purple: 0x7289da, orange: 0xeb6420, orangeLight: 0xe68d60, red: 0xff3232,
} as const;

/** A color as Gitea prints it with %x. */
export const hex = (color: number): string => color.toString(16);

/** A user's profile address. */
export const profileUrl = (u: User | null | undefined): string => u?.html_url ?? '';

/** A package as its payload shows it (only what the texts read). */
export interface PackageRef { name: string; version: string; html_url: string }

/** A workflow job as its payload shows it (only what the texts read). */
export interface WorkflowJobRef { html_url: string; name: string; run_id: number; head_sha: string; status: string; conclusion?: string }

/** The package and the workflow job of their payloads (typed loosely there), with Go's zero values for what they lack. */
export const packageOf = (p: PackagePayload): PackageRef => ({ name: '', version: '', html_url: '', ...(p.package as Partial<PackageRef> | null) });
export const workflowJobOf = (p: WorkflowJobPayload): WorkflowJobRef => {
  const run = (p as { workflow_run?: { id: number; html_url: string; display_title: string; head_sha: string; status: string; conclusion?: string } }).workflow_run;
  if (run) return { html_url: run.html_url, name: run.display_title, run_id: run.id, head_sha: run.head_sha, status: run.status, conclusion: run.conclusion };
  return { html_url: '', name: '', run_id: 0, head_sha: '', status: '', ...(p.workflow_job as Partial<WorkflowJobRef> | null) };
};

/** The review verb of a review event type; null for any other type (Gitea: "unknown event type"). */
export function reviewAction(eventType: string): 'approved' | 'rejected' | 'comment' | null {
  switch (eventType) {
    case 'pull_request_review_approved': return 'approved';
    case 'pull_request_review_rejected': return 'rejected';
    case 'pull_request_review_comment': return 'comment';
    default: return null;
  }
}

/** The color of a review by its event type. */
export function reviewColor(eventType: string): number {
  switch (reviewAction(eventType)) {
    case 'approved': return COLOR.green;
    case 'rejected': return COLOR.red;
    case 'comment': return COLOR.grey;
    default: return COLOR.yellow;
  }
}

/**
 * What most formats say of a push: the branch, "N new commits", the title `[owner/repo:branch] N new
 * commits`, and the link: the one commit, or the comparison, or else the branch's tree.
 */
export function pushSummary(p: PushPayload): { branch: string; desc: string; title: string; titleLink: string } {
  const branch = shortRefName(p.ref);
  const one = p.total_commits === 1;
  const desc = one ? '1 new commit' : `${p.total_commits} new commits`;
  const titleLink = (one ? p.commits[0]?.url : p.compare_url) || `${p.repository.html_url}/src/${pathEscapeSegments(branch)}`;
  return { branch, desc, title: `[${p.repository.full_name}:${branch}] ${desc}`, titleLink };
}

/** The event line with its title, extra text (a body) and color. */
export interface EventText { text: string; title: string; extra: string; color: number }

const bySender = (link: Link, sender: User) => ` by ${link(profileUrl(sender), sender.login)}`;

/** An issue event (getIssuesPayloadInfo). */
export function issueText(p: IssuePayload, link: Link, withSender: boolean): EventText {
  const title = `#${p.number} ${p.issue.title}`;
  const repo = p.repository;
  const repoLink = link(repo.html_url, repo.full_name);
  const titleLink = link(`${repo.html_url}/issues/${p.number}`, title);
  const milestone = p.issue.milestone;
  const lines: Record<string, [string, number?]> = {
    opened: [`Issue opened: ${titleLink}`, COLOR.orange],
    closed: [`Issue closed: ${titleLink}`, COLOR.red],
    reopened: [`Issue re-opened: ${titleLink}`],
    edited: [`Issue edited: ${titleLink}`],
    assigned: [`Issue assigned to ${(p.issue.assignees ?? []).map((u) => link(profileUrl(u), u.login)).join(', ')}: ${titleLink}`, COLOR.green],
    unassigned: [`Issue unassigned: ${titleLink}`],
    label_updated: [`Issue labels updated: ${titleLink}`],
    label_cleared: [`Issue labels cleared: ${titleLink}`],
    synchronized: [`Issue synchronized: ${titleLink}`],
    milestoned: [`Issue milestoned to ${link(`${repo.html_url}/milestone/${milestone?.id ?? 0}`, milestone?.title ?? '')}: ${titleLink}`],
    demilestoned: [`Issue milestone cleared: ${titleLink}`],
  };
  const [line, color] = Object.hasOwn(lines, p.action) ? lines[p.action] : [''];
  let text = line ? `[${repoLink}] ${line}` : '';
  if (withSender) text += bySender(link, p.sender);
  const extra = p.action === 'opened' || p.action === 'edited' ? p.issue.body : '';
  return { text, title, extra, color: color ?? COLOR.yellow };
}

/** A pull request event (getPullRequestPayloadInfo). */
export function pullText(p: PullRequestPayload, link: Link, withSender: boolean): EventText {
  const pr = p.pull_request;
  const title = `#${p.number} ${pr.title}`;
  const repo = p.repository;
  const repoLink = link(repo.html_url, repo.full_name);
  const titleLink = link(pr.url, title);
  const milestone = pr.milestone;
  const lines: Record<string, [string, number?, string?]> = {
    opened: [`Pull request opened: ${titleLink}`, COLOR.green, pr.body],
    closed: pr.merged ? [`Pull request merged: ${titleLink}`, COLOR.purple] : [`Pull request closed: ${titleLink}`, COLOR.red],
    reopened: [`Pull request re-opened: ${titleLink}`],
    edited: [`Pull request edited: ${titleLink}`, undefined, pr.body],
    assigned: [`Pull request assigned to ${(pr.assignees ?? []).map((u) => link(profileUrl(u), u.login)).join(', ')}: ${titleLink}`, COLOR.green],
    unassigned: [`Pull request unassigned: ${titleLink}`],
    label_updated: [`Pull request labels updated: ${titleLink}`],
    label_cleared: [`Pull request labels cleared: ${titleLink}`],
    synchronized: [`Pull request synchronized: ${titleLink}`],
    milestoned: [`Pull request milestoned to ${link(`${repo.html_url}/milestone/${milestone?.id ?? 0}`, milestone?.title ?? '')}: ${titleLink}`],
    demilestoned: [`Pull request milestone cleared: ${titleLink}`],
    reviewed: [`Pull request reviewed: ${titleLink}`, undefined, p.review?.content ?? ''],
    review_requested: [`Pull request review requested: ${titleLink}`],
    review_request_removed: [`Pull request review request removed: ${titleLink}`],
  };
  const [line, color, extra] = Object.hasOwn(lines, p.action) ? lines[p.action] : [''];
  let text = line ? `[${repoLink}] ${line}` : '';
  if (withSender) text += bySender(link, p.sender);
  return { text, title, extra: extra ?? '', color: color ?? COLOR.yellow };
}

/** A comment event (getIssueCommentPayloadInfo). */
export function commentText(p: IssueCommentPayload, link: Link, withSender: boolean): EventText {
  const title = `#${p.issue.number} ${p.issue.title}`;
  const kind = p.is_pull ? 'pull request' : 'issue';
  const titleLink = link(p.is_pull ? p.comment.pull_request_url : p.comment.issue_url, title);
  const lines: Record<string, [string, number]> = {
    created: [`New comment on ${kind} ${titleLink}`, p.is_pull ? COLOR.greenLight : COLOR.orangeLight],
    edited: [`Comment edited on ${kind} ${titleLink}`, COLOR.yellow],
    deleted: [`Comment deleted on ${kind} ${titleLink}`, COLOR.red],
  };
  const [line, color] = Object.hasOwn(lines, p.action) ? lines[p.action] : ['', COLOR.yellow];
  let text = line ? `[${link(p.repository.html_url, p.repository.full_name)}] ${line}` : '';
  if (withSender) text += bySender(link, p.sender);
  return { text, title, extra: '', color };
}

/** A release event (getReleasePayloadInfo); an unknown action has no text and color 0. */
export function releaseText(p: ReleasePayload, link: Link, withSender: boolean): EventText {
  const repo = p.repository;
  const refLink = link(`${repo.html_url}/releases/tag/${pathEscapeSegments(p.release.tag_name)}`, p.release.tag_name);
  const lines: Record<string, [string, number]> = {
    published: ['Release created', COLOR.green], updated: ['Release updated', COLOR.yellow], deleted: ['Release deleted', COLOR.red],
  };
  const [verb, color] = Object.hasOwn(lines, p.action) ? lines[p.action] : ['', 0];
  let text = verb ? `[${link(repo.html_url, repo.full_name)}] ${verb}: ${refLink}` : '';
  if (withSender) text += bySender(link, p.sender);
  return { text, title: '', extra: '', color };
}

/** A wiki event (getWikiPayloadInfo); `extra` is the page's link. */
export function wikiText(p: WikiPayload, link: Link, withSender: boolean): EventText {
  const repo = p.repository;
  const repoLink = link(repo.html_url, repo.full_name);
  const pageLink = link(`${repo.html_url}/wiki/${pathEscape(p.page)}`, p.page);
  const lines: Record<string, [string, number]> = {
    created: [`[${repoLink}] New wiki page '${pageLink}'`, COLOR.green],
    edited: [`[${repoLink}] Wiki page '${pageLink}' edited`, COLOR.yellow],
    deleted: [`[${repoLink}] Wiki page '${pageLink}' deleted`, COLOR.red],
  };
  const [line, color] = Object.hasOwn(lines, p.action) ? lines[p.action] : ['', COLOR.green];
  let text = line;
  if (p.action !== 'deleted' && p.comment) text += ` (${p.comment})`;
  if (withSender) text += bySender(link, p.sender);
  return { text, title: '', extra: pageLink, color };
}

/** A package event (getPackagePayloadInfo). */
export function packageText(p: PackagePayload, link: Link, withSender: boolean): EventText {
  const pkg = packageOf(p);
  const refLink = link(pkg.html_url, `${pkg.name}:${pkg.version}`);
  const lines: Record<string, [string, number]> = { created: [`Package created: ${refLink}`, COLOR.green], deleted: [`Package deleted: ${refLink}`, COLOR.red] };
  const [line, color] = Object.hasOwn(lines, p.action) ? lines[p.action] : ['', 0];
  const text = withSender ? line + bySender(link, p.sender) : line;
  return { text, title: '', extra: '', color };
}

/** A commit status event (getStatusPayloadInfo): the actions user is named, not linked. */
export function statusText(p: CommitStatusPayload, link: Link, withSender: boolean): EventText {
  const refLink = link(p.target_url, `${p.context} [${shortSha(p.sha)}]`);
  let text = `Commit Status changed: ${refLink} - ${p.description}`;
  if (withSender) text += p.sender.login.toLowerCase() === 'gitea-actions' ? ` by ${p.sender.full_name}` : bySender(link, p.sender);
  return { text, title: '', extra: '', color: COLOR.green };
}

const JOB_COLORS: Record<string, number> = {
  waiting: COLOR.orange, queued: COLOR.orangeLight, success: COLOR.green, failure: COLOR.red, cancelled: COLOR.yellow, skipped: COLOR.purple,
};

/** A workflow job event (getWorkflowJobPayloadInfo): colored by its conclusion, else its status. */
export function workflowJobText(p: WorkflowJobPayload, link: Link, withSender: boolean): EventText {
  const job = workflowJobOf(p);
  const state = job.conclusion || job.status;
  const refLink = link(job.html_url, `${job.name}(#${job.run_id})[${shortSha(job.head_sha)}]:${state}`);
  let text = `Workflow ${'workflow_run' in p ? 'Run' : 'Job'} ${p.action}: ${refLink}`;
  if (withSender) text += bySender(link, p.sender);
  return { text, title: '', extra: '', color: Object.hasOwn(JOB_COLORS, state) ? JOB_COLORS[state] : COLOR.grey };
}

/** The plain-text summary of an issue or a pull request (getIssuesInfo, getPullRequestInfo), as Feishu shows it. */
export interface Summary { title: string; link: string; by: string; operator: string; result: string; assignees: string }

function summary(kind: 'Issue' | 'PullRequest', p: IssuePayload | PullRequestPayload, issue: IssuePayload['issue'] | PullRequestPayload['pull_request']): Summary {
  const assignees = issue.assignees ?? [];
  const results: Record<string, string> = {
    assigned: `${p.sender.login} assign this to ${assignees.at(-1)?.login ?? ''}`,
    unassigned: `${p.sender.login} unassigned this for someone`,
    milestoned: `${p.repository.html_url}/milestone/${issue.milestone?.id ?? 0}`,
  };
  return {
    title: `[${kind}-${p.repository.full_name} #${issue.number}]: ${p.action}\n${issue.title}`,
    link: issue.html_url,
    by: `${kind} by ${issue.user.login}`,
    operator: `Operator: ${p.sender.login}`,
    result: Object.hasOwn(results, p.action) ? results[p.action] : '',
    assignees: assignees.length ? `Assignees: ${assignees.map((u) => u.login).join(', ')}` : '',
  };
}

export const issueSummary = (p: IssuePayload): Summary => summary('Issue', p, p.issue);
export const pullSummary = (p: PullRequestPayload): Summary => summary('PullRequest', p, p.pull_request);

/** The plain-text summary of a comment (getIssuesCommentInfo). */
export function commentSummary(p: IssueCommentPayload): Summary {
  return {
    title: `[Comment-${p.repository.full_name} #${p.issue.number}]: ${p.action}\n${p.issue.title}`,
    link: p.issue.html_url,
    by: `${p.is_pull ? 'PullRequest' : 'Issue'} by ${p.issue.user.login}`,
    operator: `Operator: ${p.sender.login}`,
    result: '', assignees: '',
  };
}
