/** Feishu's text message (Gitea's services/webhook/feishu.go): plain lines; issues and pull requests as a summary block and their body. */
import { shortRefName, trimRight, trimSpace } from './go';
import {
  type Convertor, type Summary, commentSummary, issueSummary, noLink, packageText, pullSummary, releaseText, reviewAction, statusText, wikiText,
  workflowJobText,
} from './text';

/** Feishu's message, in Gitea's field order. */
export interface FeishuMessage { msg_type: string; content: { text: string } }

const message = (text: string): FeishuMessage => ({ msg_type: 'text', content: { text: trimSpace(text) } });

/** The summary's lines (the action's result only for an assignment or a milestone, assignees when there are some), then the body. */
function summaryText(s: Summary, action: string, body: string): string {
  const result = s.assignees && ['assigned', 'unassigned', 'milestoned'].includes(action) ? [s.result] : [];
  return [s.title, s.link, s.by, s.operator, ...result, ...(s.assignees ? [s.assignees] : [])].join('\n') + `\n\n${body}`;
}

/** The Feishu convertor. */
export function feishu(): Convertor<FeishuMessage> {
  const refEvent = (p: { ref: string; ref_type: string; repository: { full_name: string } }, verb: string) =>
    message(`[${p.repository.full_name}] ${p.ref_type} ${shortRefName(p.ref)} ${verb}`);
  return {
    create: (p) => refEvent(p, 'created'),
    delete: (p) => refEvent(p, 'deleted'),
    fork: (p) => message(`${p.forkee.full_name} is forked to ${p.repository.full_name}`),
    // why: Gitea's Feishu push line leaves out the commit count (its description is never filled in).
    push: (p) => {
      const lines = (p.commits ?? []).map((c) => `[${c.id.slice(0, 7)}](${c.url}) ${trimRight(c.message, '\r\n')}${c.author ? ` - ${c.author.name}` : ''}`);
      return message(`[${p.repository.full_name}:${shortRefName(p.ref)}] \r\n${lines.join('\r\n')}`);
    },
    issue: (p) => message(summaryText(issueSummary(p), p.action, p.issue.body)),
    issueComment: (p) => message(summaryText(commentSummary(p), p.action, p.comment.body)),
    pullRequest: (p) => message(summaryText(pullSummary(p), p.action, p.pull_request.body)),
    // why: unlike the other formats, Gitea's Feishu review does not look at the action.
    review: (p, eventType) =>
      message(`[${p.repository.full_name}] Pull request review ${reviewAction(eventType)} : #${p.number} ${p.pull_request.title}\r\n\r\n${p.review?.content ?? ''}`),
    repository: (p) => (p.action === 'created' || p.action === 'deleted'
      ? message(`[${p.repository.full_name}] Repository ${p.action}`) : { msg_type: '', content: { text: '' } }),
    release: (p) => message(releaseText(p, noLink, true).text),
    wiki: (p) => message(wikiText(p, noLink, true).text),
    pkg: (p) => message(packageText(p, noLink, true).text),
    status: (p) => message(statusText(p, noLink, true).text),
    workflowJob: (p) => message(workflowJobText(p, noLink, true).text),
  };
}
