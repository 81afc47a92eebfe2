// A block file cannot be written or read as asked: the message is for the user as it stands
// (the CLI prints it, the admin methods return it).

export class ChainFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainFileError';
  }
}
