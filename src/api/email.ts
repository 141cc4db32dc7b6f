/**
 * An email address of a user (structs.Email). `user_id` and `username` are filled by the admin
 * endpoints only; elsewhere they are 0 and "" (Gitea's struct has no omitempty).
 */
export interface Email {
  email: string;
  verified: boolean;
  primary: boolean;
  user_id: number;
  username: string;
}
