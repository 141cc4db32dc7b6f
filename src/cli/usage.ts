/**
 * The usage text of the `forge` command.
 */
/** What `forge help` prints. */
export const USAGE = `usage: forge <command> [--config app.ini]

commands:
  web                         start the server (HTTP and SSH)
  migrate                     apply pending database migrations
  admin user create --username U --password P --email E [--admin] [--must-change-password=false]
                    [--restricted] [--access-token] [--access-token-name N] [--access-token-scopes S]
                              create a user
  admin user list [--admin]   list users (only administrators with --admin)
  admin user change-password --username U --password P [--must-change-password=false]
                              set a user's password (by default they must change it at next sign-in)
  admin user delete (--id N | --username U | --email E) [--purge]
                              delete a user (--purge: with their repositories)
  admin user generate-access-token --username U [--token-name N] [--scopes S] [--raw]
                              create an access token (scopes default to all)
  admin user must-change-password [--all] [--exclude U]... [--unset] [USERNAME...]
                              require (or with --unset, no longer require) a new password at next sign-in
  admin badge create --slug S [--description D] [--image-url U]
                              create a badge that administrators can give to users
  admin sendmail --title T [--content HTML] [--to NAME[,NAME...]] [-f|--force]
                              mail every active user (or those named, by username or address); asks first unless --force
  doctor check [--fix] [--run NAME[,NAME...]] [--list]
                              find what drifted between the database and the storage (--fix: repair what is safe)
  dump [--file PATH] [--tempdir DIR] [--skip-repository] [--skip-lfs-data] [--skip-attachment-data]
                              write the database (as SQL), the configuration and the data to one .tar.gz
  dump-repo --owner O --repo R [--file PATH] [--tempdir DIR] [--units U[,U...]]
                              write one repository to a .tar.gz: its code and wiki as git bundles, its labels,
                              milestones, issues, comments, pull requests, reviews and releases (with their
                              assets) as JSON documents of schemas/; --units picks from issues, labels,
                              milestones, pull_requests, comments, reviews, releases, wiki (default: all)
  restore-repo --file PATH --owner O --repo R [--units U[,U...]] [--tempdir DIR] [--max-size N] [--max-entries N]
                              make the new repository O/R from a dump-repo archive; every document is checked
                              first and a refusal leaves nothing (--max-size: bytes unpacked, default 10GiB;
                              --max-entries: default 100000)
`;
