// Gitea's error answers: status plus the APIError body `{message, url}` (url is the API docs link).
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const notFound = (message = "The target couldn't be found."): ApiError => new ApiError(404, message);
export const forbidden = (message: string): ApiError => new ApiError(403, message);
export const unauthorized = (message = 'token is required'): ApiError => new ApiError(401, message);
export const unprocessable = (message: string): ApiError => new ApiError(422, message);
export const conflict = (message: string): ApiError => new ApiError(409, message);

export function errorBody(baseUrl: string, message: string): { message: string; url: string } {
  return { message, url: `${baseUrl}/api/swagger` };
}

/** context.RedirectToRepo: a 307 to the same request under a renamed repository's new name. */
export class RepoRedirect extends Error {
  constructor(readonly location: string) {
    super('repository renamed');
    this.name = 'RepoRedirect';
  }
}
