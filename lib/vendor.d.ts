// Type declarations for dependencies that ship none.
declare module 'swagger-ui-dist' {
  export function getAbsoluteFSPath(): string;
}
