/**
 * CSV and TSV files as an HTML table (Gitea's `data-table`, with line numbers). The separator of a
 * `.csv` file is the one of `,`, `;`, tab and `|` that its first line uses most.
 */
import { escapeHtml } from './sanitize';

/** Split CSV text into rows of fields (RFC 4180 quoting; a quote inside a field is doubled). */
export function parseCsv(text: string, sep: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === sep) { row.push(field); field = ''; }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function guessSeparator(text: string, fileName: string): string {
  if (/\.tsv$/i.test(fileName)) return '\t';
  const first = text.slice(0, text.search(/\r?\n|$/));
  let best = ',';
  let most = 0;
  for (const sep of [',', ';', '\t', '|']) {
    const n = first.split(sep).length - 1;
    if (n > most) { best = sep; most = n; }
  }
  return best;
}

/** The table of a CSV or TSV file; the first row is the header. */
export function renderCsv(text: string, fileName: string): string {
  const rows = parseCsv(text, guessSeparator(text, fileName));
  const html = rows.map((row, i) => {
    const cell = i === 0 ? 'th' : 'td';
    return `<tr><${cell} class="line-num">${i + 1}</${cell}>${row.map((f) => `<${cell}>${escapeHtml(f)}</${cell}>`).join('')}</tr>`;
  });
  return `<table class="data-table">${html.join('\n')}</table>\n`;
}
