/** Site administration pages (to be built). */
import express, { type Router } from 'express';

/** Site administration routes. */
export function adminPages(): Router {
  return express.Router();
}
