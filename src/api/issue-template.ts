/**
 * Issue templates and the issue config as Gitea's API shows them (modules/structs/issue.go:
 * IssueTemplate, IssueFormField, IssueConfig, IssueConfigContactLink, IssueConfigValidation).
 */

/** One field of an issue form: markdown, textarea, input, dropdown or checkboxes. */
export interface IssueFormField {
  type: string;
  id: string;
  /** The field's attributes as written in the form (label, description, options...); null when absent. */
  attributes: Record<string, unknown> | null;
  /** The field's validations as written in the form (required, is_number, regex); null when absent. */
  validations: Record<string, unknown> | null;
  /** Where the field shows: "form" and/or "content" (omitted when empty). */
  visible?: string[];
}

/** An issue template of the default branch: a markdown template (`content`) or a YAML form (`body`). */
export interface IssueTemplate {
  name: string;
  title: string;
  about: string;
  labels: string[] | null;
  assignees: string[] | null;
  ref: string;
  content: string;
  body: IssueFormField[] | null;
  /** The template's path in the repository. */
  file_name: string;
}

/** A link the new-issue chooser offers besides the templates. */
export interface IssueConfigContactLink {
  name: string;
  url: string;
  about: string;
}

/** The issue config (`.gitea/ISSUE_TEMPLATE/config.yaml` and its alternatives). */
export interface IssueConfig {
  blank_issues_enabled: boolean;
  contact_links: IssueConfigContactLink[] | null;
}

/** Whether the issue config parses and checks out, and why not. */
export interface IssueConfigValidation {
  valid: boolean;
  message: string;
}
