/** badge row -> API Badge (snake_case keys; see the note on Badge in src/api/admin.ts). */
import type { Badge } from '../api/admin';
import type { BadgeModel } from '../models/badge.model';

/** Convert a badge row. */
export function toBadge(b: BadgeModel): Badge {
  return { id: b.id, slug: b.slug, description: b.description, image_url: b.imageUrl };
}
