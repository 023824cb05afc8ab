/** Vite handles CSS imports; TypeScript only needs to know they exist. */
declare module "*.css";
