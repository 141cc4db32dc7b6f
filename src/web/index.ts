/**
 * The server-rendered web side: the Swagger viewer, sign-up, and (later issues) the browser UI.
 */
import express, { type Router } from 'express';
import { swaggerRouter } from './swagger';
import { signupRouter } from './signup';

/** Every non-API web route. */
export function webRouter(): Router {
  const r = express.Router();
  r.use(swaggerRouter());
  r.use(signupRouter());
  return r;
}
