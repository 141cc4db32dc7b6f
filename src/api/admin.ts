/** Options an administrator gives to create a user (structs.CreateUserOption). */
export interface CreateUserOption {
  source_id?: number;
  login_name?: string;
  /** @maxLength 40 */
  username: string;
  /** @maxLength 100 */
  full_name?: string;
  /** @maxLength 254 */
  email: string;
  /** @maxLength 255 */
  password?: string;
  /** defaults to true */
  must_change_password?: boolean;
  send_notify?: boolean;
  restricted?: boolean;
  /** public, limited or private */
  visibility?: string;
  /** For explicitly setting the user creation timestamp. Useful when users are migrated from other systems. */
  created_at?: string;
}
