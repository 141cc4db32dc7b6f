/** Discord's message (Gitea's services/webhook/discord.go): one embed with a title, a description cut at 2000 characters, a link and a color. */
import type { User } from '../../../api/user';
import { pathEscape, pathEscapeSegments, shortRefName, truncateRunes } from './go';
import {
  COLOR, type Convertor, commentText, issueText, noLink, packageOf, packageText, profileUrl, pullText, pushSummary, releaseText, reviewAction,
  reviewColor, statusText, wikiText, workflowJobOf, workflowJobText,
} from './text';

/** A Discord hook's meta. */
export interface DiscordMeta { username: string; icon_url: string }

interface DiscordEmbed {
  title: string; description: string; url: string; color: number; footer: { text: string };
  author: { name: string; url: string; icon_url: string }; fields: null;
}

/** Discord's message, in Gitea's field order (username and avatar_url only when set). */
export interface DiscordMessage { wait: boolean; content: string; username?: string; avatar_url?: string; tts: boolean; embeds: DiscordEmbed[] }

/** Gitea's limit of an embed's description, in characters. */
const DESCRIPTION_LIMIT = 2000;

/** The Discord convertor of a hook's meta. */
export function discord(meta: DiscordMeta): Convertor<DiscordMessage> {
  const message = (sender: User, title: string, text: string, url: string, color: number): DiscordMessage => ({
    wait: false, content: '', ...(meta.username ? { username: meta.username } : {}), ...(meta.icon_url ? { avatar_url: meta.icon_url } : {}), tts: false,
    embeds: [{
      title, description: truncateRunes(text, DESCRIPTION_LIMIT), url, color, footer: { text: '' },
      author: { name: sender.login, url: profileUrl(sender), icon_url: sender.avatar_url }, fields: null,
    }],
  });
  const refEvent = (p: { ref: string; ref_type: string; repository: { full_name: string; html_url: string }; sender: User }, verb: string, color: number) => {
    const name = shortRefName(p.ref);
    return message(p.sender, `[${p.repository.full_name}] ${p.ref_type} ${name} ${verb}`, '', `${p.repository.html_url}/src/${pathEscapeSegments(name)}`, color);
  };
  return {
    create: (p) => refEvent(p, 'created', COLOR.green),
    delete: (p) => refEvent(p, 'deleted', COLOR.red),
    fork: (p) => message(p.sender, `${p.forkee.full_name} is forked to ${p.repository.full_name}`, '', p.repository.html_url, COLOR.green),
    push: (p) => {
      const { title, titleLink } = pushSummary(p);
      const lines = (p.commits ?? []).map((c) => {
        // The summary line only, cut at 50 characters as GitHub does.
        let line = trimTrailingCr(c.message.split('\n')[0]);
        if (Array.from(line).length > 50) line = `${Array.from(line).slice(0, 47).join('')}...`;
        return `[${c.id.slice(0, 7)}](${c.url}) ${line} - ${c.author?.name ?? ''}`;
      });
      return message(p.sender, title, lines.join('\n'), titleLink, COLOR.green);
    },
    issue: (p) => {
      const t = issueText(p, noLink, false);
      return message(p.sender, t.text, t.extra, p.issue.html_url, t.color);
    },
    issueComment: (p) => {
      const t = commentText(p, noLink, false);
      return message(p.sender, t.text, p.comment.body, p.comment.html_url, t.color);
    },
    pullRequest: (p) => {
      const t = pullText(p, noLink, false);
      return message(p.sender, t.text, t.extra, p.pull_request.html_url, t.color);
    },
    review: (p, eventType) => {
      const reviewed = p.action === 'reviewed';
      const title = reviewed ? `[${p.repository.full_name}] Pull request review ${reviewAction(eventType)}: #${p.number} ${p.pull_request.title}` : '';
      return message(p.sender, title, reviewed ? p.review?.content ?? '' : '', p.pull_request.html_url, reviewed ? reviewColor(eventType) : 0);
    },
    repository: (p) => {
      if (p.action === 'created') return message(p.sender, `[${p.repository.full_name}] Repository created`, '', p.repository.html_url, COLOR.green);
      if (p.action === 'deleted') return message(p.sender, `[${p.repository.full_name}] Repository deleted`, '', '', COLOR.red);
      return message(p.sender, '', '', '', 0);
    },
    wiki: (p) => {
      const t = wikiText(p, noLink, false);
      return message(p.sender, t.text, p.action !== 'deleted' ? p.comment : '', `${p.repository.html_url}/wiki/${pathEscape(p.page)}`, t.color);
    },
    release: (p) => {
      const t = releaseText(p, noLink, false);
      return message(p.sender, t.text, p.release.body, p.release.html_url, t.color);
    },
    pkg: (p) => {
      const t = packageText(p, noLink, false);
      return message(p.sender, t.text, '', packageOf(p).html_url, t.color);
    },
    status: (p) => {
      const t = statusText(p, noLink, false);
      return message(p.sender, t.text, '', p.target_url, t.color);
    },
    workflowJob: (p) => {
      const t = workflowJobText(p, noLink, false);
      return message(p.sender, t.text, '', workflowJobOf(p).html_url, t.color);
    },
  };
}

const trimTrailingCr = (s: string) => s.replace(/\r+$/, '');
