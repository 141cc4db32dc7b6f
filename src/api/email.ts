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

/** Addresses to add to the signed-in user (structs.CreateEmailOption). */
export interface CreateEmailOption {
  /** email addresses to add */
  emails?: string[];
}

/** Addresses to remove from the signed-in user (structs.DeleteEmailOption). */
export interface DeleteEmailOption {
  /** email addresses to delete */
  emails?: string[];
}
