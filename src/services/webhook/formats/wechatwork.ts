/** WeCom's (WeChat Work's) markdown message (Gitea's services/webhook/wechatwork.go), with its colored font tags. */
import { shortRefName } from './go';
import {
  type Convertor, commentText, issueText, noLink, packageText, pullText, releaseText, reviewAction, statusText, wikiText, workflowJobText,
} from './text';

/** WeCom's message, in Gitea's field order. */
export interface WechatworkMessage {
  msgtype: string; text: { content: string; mentioned_list: null; mentioned_mobile_list: null }; markdown: { content: string };
}

const message = (content: string, msgtype = 'markdown'): WechatworkMessage =>
  ({ msgtype, text: { content: '', mentioned_list: null, mentioned_mobile_list: null }, markdown: { content } });

/** The WeCom convertor. */
export function wechatwork(): Convertor<WechatworkMessage> {
  const refEvent = (p: { ref: string; ref_type: string; repository: { full_name: string } }, verb: string) =>
    message(`[${p.repository.full_name}] ${p.ref_type} ${shortRefName(p.ref)} ${verb}`);
  return {
    create: (p) => refEvent(p, 'created'),
    delete: (p) => refEvent(p, 'deleted'),
    fork: (p) => message(`${p.forkee.full_name} is forked to ${p.repository.full_name}`),
    // why: Gitea's heading holds an empty commit count between its spaces.
    push: (p) => {
      const title = `# ${p.repository.full_name}:${shortRefName(p.ref)} <font color="warning">    </font>`;
      const commits = (p.commits ?? []).map((c) => {
        const author = c.author ? `Author: ${c.author.name}` : '';
        const text = c.message.replaceAll('\n\n', '\r\n');
        return ` > [${c.id.slice(0, 7)}](${c.url}) \r\n ><font color="info">${text}</font> \n ><font color="warning">${author}</font>`;
      });
      return message(`${title}\r\n\r\n${commits.join('\n')}`);
    },
    issue: (p) => {
      const t = issueText(p, noLink, true);
      const url = p.issue.html_url;
      return message(` ><font color="info">${t.text}</font>\n >${t.extra} \n ><font color="warning"> ${t.title}</font> \n [${url}](${url})`);
    },
    issueComment: (p) => {
      const t = commentText(p, noLink, true);
      const url = p.comment.html_url;
      return message(` ><font color="info">${t.text}</font>\n >${p.comment.body} \n ><font color="warning">${t.title}</font> \n [${url}](${url})`);
    },
    pullRequest: (p) => {
      const t = pullText(p, noLink, true);
      return message(`> <font color="info"> ${t.text} </font> \r\n > <font color="comment">${t.title} </font> \r\n > <font color="comment">${t.extra} </font> \r\n`);
    },
    review: (p, eventType) => {
      const reviewed = p.action === 'reviewed';
      const title = reviewed ? `[${p.repository.full_name}] Pull request review ${reviewAction(eventType)} : #${p.number} ${p.pull_request.title}` : '';
      return message(`# ${title}\r\n\r\n >${reviewed ? p.review?.content ?? '' : ''}`);
    },
    repository: (p) => (p.action === 'created' || p.action === 'deleted'
      ? message(`[${p.repository.full_name}] Repository ${p.action}`) : message('', '')),
    release: (p) => message(releaseText(p, noLink, true).text),
    wiki: (p) => message(wikiText(p, noLink, true).text),
    pkg: (p) => message(packageText(p, noLink, true).text),
    status: (p) => message(statusText(p, noLink, true).text),
    workflowJob: (p) => message(workflowJobText(p, noLink, true).text),
  };
}
