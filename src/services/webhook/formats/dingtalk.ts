/**
 * DingTalk's message (Gitea's services/webhook/dingtalk.go): an action card with a title, a text and
 * one button whose link opens in the browser; every part of the message is sent, empty or not.
 */
import { pathEscape, pathEscapeSegments, queryEscape, shortRefName, trimRight, trimSpace } from './go';
import {
  type Convertor, commentText, issueText, noLink, packageOf, packageText, pullText, pushSummary, releaseText, reviewAction, statusText, wikiText,
  workflowJobOf, workflowJobText,
} from './text';

interface ActionCard {
  text: string; title: string; hideAvatar: string; btnOrientation: string; singleTitle: string; singleURL: string;
  btns: { title: string; actionURL: string }[] | null;
}

/** DingTalk's message, in the field order of the library Gitea uses. */
export interface DingtalkMessage {
  msgtype: string; text: { content: string }; link: { text: string; title: string; picUrl: string; messageUrl: string };
  markdown: { text: string; title: string }; actionCard: ActionCard; feedCard: { links: null }; at: { atMobiles: null; isAtAll: boolean };
}

const NO_CARD: ActionCard = { text: '', title: '', hideAvatar: '', btnOrientation: '', singleTitle: '', singleURL: '', btns: null };

const message = (msgtype: string, content: string, actionCard: ActionCard): DingtalkMessage => ({
  msgtype, text: { content }, link: { text: '', title: '', picUrl: '', messageUrl: '' }, markdown: { text: '', title: '' }, actionCard,
  feedCard: { links: null }, at: { atMobiles: null, isAtAll: false },
});

/** An action card; the button's link goes through DingTalk's opener so that it opens in the browser. */
const card = (title: string, text: string, singleTitle: string, url: string): DingtalkMessage => message('actionCard', '', {
  text: trimSpace(text), title: trimSpace(title), hideAvatar: '0', btnOrientation: '', singleTitle,
  singleURL: `dingtalk://dingtalkclient/page/link?pc_slide=false&url=${queryEscape(url)}`, btns: null,
});

/** The DingTalk convertor. */
export function dingtalk(): Convertor<DingtalkMessage> {
  const refEvent = (p: { ref: string; ref_type: string; repository: { html_url: string; full_name: string } }, verb: string) => {
    const name = shortRefName(p.ref);
    const title = `[${p.repository.full_name}] ${p.ref_type} ${name} ${verb}`;
    return card(title, title, `view ref ${name}`, `${p.repository.html_url}/src/${pathEscapeSegments(name)}`);
  };
  return {
    create: (p) => refEvent(p, 'created'),
    delete: (p) => refEvent(p, 'deleted'),
    fork: (p) => {
      const title = `${p.forkee.full_name} is forked to ${p.repository.full_name}`;
      return card(title, title, `view forked repo ${p.repository.full_name}`, p.repository.html_url);
    },
    push: (p) => {
      const { title, titleLink } = pushSummary(p);
      const text = (p.commits ?? [])
        .map((c) => `[${c.id.slice(0, 7)}](${c.url}) ${trimRight(c.message, '\r\n')}${c.author ? ` - ${c.author.name}` : ''}`).join('\r\n');
      return card(title, text, p.total_commits === 1 ? 'view commit' : 'view commits', titleLink);
    },
    issue: (p) => {
      const t = issueText(p, noLink, true);
      return card(t.title, `${t.text}\r\n\r\n${t.extra}`, 'view issue', p.issue.html_url);
    },
    issueComment: (p) => {
      const t = commentText(p, noLink, true);
      return card(t.title, `${t.text}\r\n\r\n${p.comment.body}`, 'view issue comment', p.comment.html_url);
    },
    pullRequest: (p) => {
      const t = pullText(p, noLink, true);
      return card(t.title, `${t.text}\r\n\r\n${t.extra}`, 'view pull request', p.pull_request.html_url);
    },
    review: (p, eventType) => {
      const reviewed = p.action === 'reviewed';
      const title = reviewed ? `[${p.repository.full_name}] Pull request review ${reviewAction(eventType)} : #${p.number} ${p.pull_request.title}` : '';
      return card(title, `${title}\r\n\r\n${reviewed ? p.review?.content ?? '' : ''}`, 'view pull request', p.pull_request.html_url);
    },
    repository: (p) => {
      const title = `[${p.repository.full_name}] Repository ${p.action}`;
      if (p.action === 'created') return card(title, title, 'view repository', p.repository.html_url);
      // why: Gitea sends a deleted repository as a plain text message.
      if (p.action === 'deleted') return message('text', title, NO_CARD);
      return message('', '', NO_CARD);
    },
    wiki: (p) => {
      const { text } = wikiText(p, noLink, true);
      return card(text, text, 'view wiki', `${p.repository.html_url}/wiki/${pathEscape(p.page)}`);
    },
    release: (p) => {
      const { text } = releaseText(p, noLink, true);
      return card(text, text, 'view release', p.release.html_url);
    },
    pkg: (p) => {
      const { text } = packageText(p, noLink, true);
      return card(text, text, 'view package', packageOf(p).html_url);
    },
    status: (p) => {
      const { text } = statusText(p, noLink, true);
      return card(text, text, 'Status Changed', p.target_url);
    },
    workflowJob: (p) => {
      const { text } = workflowJobText(p, noLink, true);
      return card(text, text, 'Workflow Job', workflowJobOf(p).html_url);
    },
  };
}
