/**
 * Stars, watches, collaborators and topics as Gitea's API shows them (structs.WatchInfo,
 * RepoCollaboratorPermission, AddCollaboratorOption, TopicName, RepoTopicOptions, TopicResponse).
 */
import type { User } from './user';

/** The caller's subscription to a repository. */
export interface WatchInfo {
  subscribed: boolean;
  ignored: boolean;
  reason: unknown;
  created_at: string;
  url: string;
  repository_url: string;
}

/** A user's permission on a repository. */
export interface RepoCollaboratorPermission {
  permission: string;
  role_name: string;
  user: User;
}

/** Body of PUT /repos/{owner}/{repo}/collaborators/{collaborator}. */
export interface AddCollaboratorOption {
  permission?: 'read' | 'write' | 'admin';
}

/** A repository's topic names. */
export interface TopicName {
  topics: string[];
}

/** Body of PUT /repos/{owner}/{repo}/topics. */
export interface RepoTopicOptions {
  /** list of topic names */
  topics?: string[];
}

/** One topic with its use count. */
export interface TopicResponse {
  id: number;
  topic_name: string;
  repo_count: number;
  created: string;
  updated: string;
}

/** Answer of GET /topics/search. */
export interface TopicListResponse {
  topics: TopicResponse[];
}
