// The plugin ships without types; the forge uses its full shortcode set.
declare module 'markdown-it-emoji' {
  import type MarkdownIt from 'markdown-it';
  export const full: (md: MarkdownIt) => void;
}
