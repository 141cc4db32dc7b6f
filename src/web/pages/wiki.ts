/** Wiki pages (to be built). */
import express, { type Router } from 'express';

/** Wiki routes. */
export function wikiPages(): Router {
  return express.Router();
}
