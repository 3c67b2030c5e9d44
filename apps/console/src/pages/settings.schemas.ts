import { z } from 'zod';

/** Request schemas of the console's settings pages (forms, as browsers send them). */

const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;

/** POST /settings/users: a person to add, who sets a password through the reset email. */
export const userForm = z.object({
  email: z.string().trim().email().max(254),
  name: z.string().trim().min(1).max(100),
  role: z.enum(ROLES),
});

/** POST /settings/users/:id/role */
export const roleForm = z.object({ role: z.enum(ROLES) });

export { ROLES as USER_ROLES };
