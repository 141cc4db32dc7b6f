/**
 * The server-rendered web side: the Swagger viewer and the browser UI's pages.
 */
import express, { type Router } from 'express';
import { swaggerRouter } from './swagger';
import { pagesRouter } from './pages';

/** Every non-API web route. */
export function webRouter(): Router {
  const r = express.Router();
  r.use(swaggerRouter());
  r.use(pagesRouter());
  return r;
}
