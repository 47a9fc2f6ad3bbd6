import { Injectable } from '@nestjs/common';
import { Clock, newId } from '@app/common';
import { AuthRepository } from './auth.repository.js';
import type { User } from './entities/user.entity.js';

/** Never a valid argon2 hash: a user made by single sign-on or SCIM has no password until it sets one. */
const NO_PASSWORD = '!';

/** A user as an identity provider or a directory sees it. */
export interface DirectoryUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  timezone: string;
}

function view(user: User): DirectoryUser {
  return { id: user.id, email: user.email, firstName: user.firstName, lastName: user.lastName, timezone: user.timezone };
}

/**
 * Users as the customer's identity provider and directory make them (contract § 21): found by email or id, created
 * without a password (single sign-on is how they sign in), renamed. Account data, not organization data.
 */
@Injectable()
export class DirectoryUsers {
  constructor(
    private readonly repository: AuthRepository,
    private readonly clock: Clock,
  ) {}

  async findByEmail(email: string): Promise<DirectoryUser | null> {
    const user = await this.repository.findUserByEmail(email.toLowerCase());
    return user ? view(user) : null;
  }

  async findById(id: string): Promise<DirectoryUser | null> {
    const user = await this.repository.findUser(id);
    return user ? view(user) : null;
  }

  /** In the caller's transaction; the unique index on the email refuses a second user of one email. */
  async create(input: { email: string; firstName: string | null; lastName: string | null }): Promise<DirectoryUser> {
    const now = this.clock.now();
    const user: User = {
      id: newId('usr'),
      email: input.email.toLowerCase(),
      passwordHash: NO_PASSWORD,
      firstName: input.firstName,
      lastName: input.lastName,
      timezone: 'UTC',
      createdAt: now,
      updatedAt: now,
    };
    await this.repository.insertUser(user);
    return view(user);
  }

  async rename(id: string, names: { firstName: string | null; lastName: string | null }): Promise<void> {
    await this.repository.updateUser(id, { ...names, updatedAt: this.clock.now() });
  }
}
