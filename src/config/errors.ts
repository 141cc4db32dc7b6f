/** The errors that stop start-up; every part of src/config throws them, and the CLI prints their message. */

/** A problem that stops start-up; its one-line message names the setting or path and what to do. */
export class StartupError extends Error {}

/** A start-up configuration problem; the message names the offending key. */
export class ConfigError extends StartupError {}
