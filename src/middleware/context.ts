/**
 * Small accessors controllers use on every request: the DbContext, the viewer for converters,
 * and the signed-in user.
 */
import type { Request } from 'express';
import type { DbContext } from '../db';
import type { UserModel } from '../models/user.model';
import type { Viewer } from '../convert/user';
import { Unauthorized } from '../errors';

/** The DbContext of a request (no transaction; services open one when they need it). */
export function ctxOf(req: Request): DbContext {
  return { doerId: req.principal?.user?.id ?? null, requestId: req.requestId };
}

/** Who is looking, for converters that hide fields (null = anonymous). */
export function viewerOf(req: Request): Viewer | null {
  const u = req.principal?.user;
  return u ? { id: u.id, isAdmin: u.isAdmin } : null;
}

/** The signed-in user; 401 when anonymous (routes with `@Security('signed')` never see that). */
export function doerOf(req: Request): UserModel {
  const u = req.principal?.user;
  if (!u) throw new Unauthorized('token is required');
  return u;
}
