/** Organization pages and the create-repository and create-organization forms (to be built). */
import express, { type Router } from 'express';

/** Organization routes. */
export function orgPages(): Router {
  return express.Router();
}
