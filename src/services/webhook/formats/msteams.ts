/** Microsoft Teams' MessageCard (Gitea's services/webhook/msteams.go): a title, one section with the sender and facts, and a link button. */
import type { Repository } from '../../../api/repo';
import type { User } from '../../../api/user';
import { pathEscape, pathEscapeSegments, shortRefName, trimRight } from './go';
import {
  COLOR, type Convertor, commentText, hex, issueText, noLink, packageOf, packageText, pullText, pushSummary, releaseText, reviewAction, reviewColor,
  statusText, wikiText, workflowJobOf, workflowJobText,
} from './text';

interface Fact { name: string; value: string }

/** The MessageCard, in Gitea's field order. */
export interface TeamsCard {
  '@type': string; '@context': string; themeColor: string; title: string; summary: string;
  sections: { activityTitle: string; activitySubtitle: string; activityImage: string; facts: Fact[]; text: string }[];
  potentialAction: { '@type': string; name: string; targets: { os: string; uri: string }[] }[];
}

/** A card: the repository's name is the first fact when there is a repository, then `fact`. */
function card(repo: Repository | null, sender: User, title: string, text: string, target: string, color: number, fact: Fact | null): TeamsCard {
  const facts = [...(repo ? [{ name: 'Repository:', value: repo.full_name }] : []), ...(fact ? [fact] : [])];
  return {
    '@type': 'MessageCard', '@context': 'https://schema.org/extensions', themeColor: hex(color), title, summary: title,
    sections: [{ activityTitle: sender.full_name, activitySubtitle: sender.login, activityImage: sender.avatar_url, facts, text }],
    potentialAction: [{ '@type': 'OpenUri', name: 'View in Gitea', targets: [{ os: 'default', uri: target }] }],
  };
}

const fact = (name: string, value: string | number): Fact => ({ name, value: String(value) });

/** The Microsoft Teams convertor. */
export function msteams(): Convertor<TeamsCard> {
  const refEvent = (p: { ref: string; ref_type: string; repository: Repository; sender: User }, verb: string, color: number) => {
    const name = shortRefName(p.ref);
    const url = `${p.repository.html_url}/src/${pathEscapeSegments(name)}`;
    return card(p.repository, p.sender, `[${p.repository.full_name}] ${p.ref_type} ${name} ${verb}`, '', url, color, fact(`${p.ref_type}:`, name));
  };
  return {
    create: (p) => refEvent(p, 'created', COLOR.green),
    delete: (p) => refEvent(p, 'deleted', COLOR.yellow),
    fork: (p) => card(p.repository, p.sender, `${p.forkee.full_name} is forked to ${p.repository.full_name}`, '', p.repository.html_url, COLOR.green,
      fact('Forkee:', p.forkee.full_name)),
    push: (p) => {
      const { title, titleLink } = pushSummary(p);
      const text = (p.commits ?? []).map((c) => `[${c.id.slice(0, 7)}](${c.url}) ${trimRight(c.message, '\r\n')} - ${c.author?.name ?? ''}`).join('\n\n');
      return card(p.repository, p.sender, title, text, titleLink, COLOR.green, fact('Commit count:', p.total_commits));
    },
    // why: Gitea's "Issue #" and "Pull request #" facts show the database id, not the number.
    issue: (p) => {
      const t = issueText(p, noLink, false);
      return card(p.repository, p.sender, t.text, t.extra, p.issue.html_url, t.color, fact('Issue #:', p.issue.id));
    },
    issueComment: (p) => {
      const t = commentText(p, noLink, false);
      return card(p.repository, p.sender, t.text, p.comment.body, p.comment.html_url, t.color, fact('Issue #:', p.issue.id));
    },
    pullRequest: (p) => {
      const t = pullText(p, noLink, false);
      return card(p.repository, p.sender, t.text, t.extra, p.pull_request.html_url, t.color, fact('Pull request #:', p.pull_request.id));
    },
    review: (p, eventType) => {
      const reviewed = p.action === 'reviewed';
      const title = reviewed ? `[${p.repository.full_name}] Pull request review ${reviewAction(eventType)}: #${p.number} ${p.pull_request.title}` : '';
      return card(p.repository, p.sender, title, reviewed ? p.review?.content ?? '' : '', p.pull_request.html_url, reviewed ? reviewColor(eventType) : 0,
        fact('Pull request #:', p.pull_request.id));
    },
    repository: (p) => {
      if (p.action === 'created') return card(p.repository, p.sender, `[${p.repository.full_name}] Repository created`, '', p.repository.html_url, COLOR.green, null);
      if (p.action === 'deleted') return card(p.repository, p.sender, `[${p.repository.full_name}] Repository deleted`, '', '', COLOR.yellow, null);
      return card(p.repository, p.sender, '', '', '', 0, null);
    },
    // why: the wiki's card names the repository twice, as Gitea's does.
    wiki: (p) => {
      const t = wikiText(p, noLink, false);
      return card(p.repository, p.sender, t.text, '', `${p.repository.html_url}/wiki/${pathEscape(p.page)}`, t.color, fact('Repository:', p.repository.full_name));
    },
    release: (p) => {
      const t = releaseText(p, noLink, false);
      return card(p.repository, p.sender, t.text, '', p.release.html_url, t.color, fact('Tag:', p.release.tag_name));
    },
    pkg: (p) => {
      const t = packageText(p, noLink, false);
      return card(p.repository, p.sender, t.text, '', packageOf(p).html_url, t.color, fact('Package:', packageOf(p).name));
    },
    status: (p) => {
      const t = statusText(p, noLink, false);
      return card(p.repository, p.sender, t.text, '', p.target_url, t.color, fact('CommitStatus:', p.context));
    },
    workflowJob: (p) => {
      const t = workflowJobText(p, noLink, false);
      const job = workflowJobOf(p);
      return card(p.repository, p.sender, t.text, '', job.html_url, t.color, fact('WorkflowJob:', job.name));
    },
  };
}
