/** Slack's message (Gitea's services/webhook/slack.go): a text with Slack links, and attachments for bodies and commits. */
import type { User } from '../../../api/user';
import type { PullRequestPayload } from '../../../api/webhook';
import { refWebLinkPath, shortRefName } from './go';
import {
  type Convertor, type Link, commentText, hex, issueText, packageText, profileUrl, pullText, releaseText, reviewAction, statusText, wikiText,
  workflowJobText,
} from './text';

/** A Slack hook's meta. */
export interface SlackMeta { channel: string; username: string; icon_url: string; color: string }

interface SlackAttachment { fallback: string; color: string; title: string; title_link: string; text: string }

/** Slack's message, in Gitea's field order. */
export interface SlackMessage {
  channel: string; text: string; username: string; icon_url: string; unfurl_links: number; link_names: number; attachments: SlackAttachment[] | null;
}

/** `&`, `<` and `>` escaped as Slack wants them. */
const slackText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The first line, escaped. */
const slackShortText = (s: string) => slackText(s.split('\n')[0]);

const slackLink: Link = (url, text) => `<${url}|${slackText(text)}>`;

/** A link to a ref's tree; a short name that is no branch, tag or commit id links to the bare `/src/` (as Gitea). */
const slackRefLink = (repoUrl: string, ref: string) => slackLink(`${repoUrl}/src/${refWebLinkPath(ref)}`, shortRefName(ref));

const attachment = (color: string, title: string, titleLink: string, text: string): SlackAttachment => ({ fallback: '', color, title, title_link: titleLink, text });

/** The Slack convertor of a hook's meta. */
export function slack(meta: SlackMeta): Convertor<SlackMessage> {
  const message = (text: string, attachments: SlackAttachment[] | null = null): SlackMessage => ({
    channel: meta.channel, text, username: meta.username, icon_url: meta.icon_url, unfurl_links: 0, link_names: 0, attachments,
  });
  const senderLink = (u: User) => slackLink(profileUrl(u), u.login);
  const repoLink = (r: { html_url: string; full_name: string }) => slackLink(r.html_url, r.full_name);
  const pull = (p: PullRequestPayload) => {
    const t = pullText(p, slackLink, true);
    return message(t.text, t.extra ? [attachment(hex(t.color), slackText(t.title), p.pull_request.html_url, slackText(p.pull_request.body))] : null);
  };
  return {
    create: (p) => message(`[${repoLink(p.repository)}:${slackRefLink(p.repository.html_url, p.ref)}] ${p.ref_type} created by ${p.sender.login}`),
    delete: (p) => message(`[${repoLink(p.repository)}:${shortRefName(p.ref)}] ${p.ref_type} deleted by ${p.sender.login}`),
    fork: (p) => message(`${repoLink(p.forkee)} is forked to ${repoLink(p.repository)}`),
    push: (p) => {
      const desc = p.total_commits === 1 ? '1 new commit' : `${p.total_commits} new commits`;
      const commits = p.compare_url ? slackLink(p.compare_url, desc) : desc;
      const text = `[${repoLink(p.repository)}:${slackRefLink(p.repository.html_url, p.ref)}] ${commits} pushed by ${p.pusher.login}`;
      const lines = (p.commits ?? []).map((c) => `${slackLink(c.url, c.id.slice(0, 7))}: ${slackShortText(c.message)} - ${slackText(c.author?.name ?? '')}`);
      return message(text, [attachment(meta.color, p.repository.html_url, p.repository.html_url, lines.join('\n'))]);
    },
    issue: (p) => {
      const t = issueText(p, slackLink, true);
      return message(t.text, t.extra ? [attachment(hex(t.color), slackText(t.title), p.issue.html_url, slackText(t.extra))] : null);
    },
    issueComment: (p) => {
      const t = commentText(p, slackLink, true);
      return message(t.text, [attachment(hex(t.color), t.title, p.comment.html_url, slackText(p.comment.body))]);
    },
    pullRequest: pull,
    review: (p, eventType) => {
      const title = `#${p.number} ${p.pull_request.title}`;
      const titleLink = `${p.repository.html_url}/pulls/${p.number}`;
      const action = reviewAction(eventType);
      // why: Gitea writes this one link in Markdown, which Slack shows as is.
      return message(p.action === 'reviewed' && action
        ? `[${repoLink(p.repository)}] Pull request review ${action}: [${title}](${titleLink}) by ${senderLink(p.sender)}` : '');
    },
    repository: (p) => message(p.action === 'created' || p.action === 'deleted'
      ? `[${repoLink(p.repository)}] Repository ${p.action} by ${senderLink(p.sender)}` : ''),
    release: (p) => message(releaseText(p, slackLink, true).text),
    wiki: (p) => message(wikiText(p, slackLink, true).text),
    pkg: (p) => message(packageText(p, slackLink, true).text),
    status: (p) => message(statusText(p, slackLink, true).text),
    workflowJob: (p) => message(workflowJobText(p, slackLink, true).text),
  };
}
