// The report of a user data deletion (endpoint and CLI): what was removed from each store.
import type { UserDeletion } from '../../domain/users/delete-user.ts';

export function presentUserDeletion(d: UserDeletion) {
  return {
    user_id: d.userId,
    install_instance_ids: d.installIds,
    removed: {
      postgres: {
        app_users: d.postgres.appUsers,
        installs: d.postgres.installs,
        payments: d.postgres.payments,
        fact_outbox: d.postgres.factOutbox,
        fact_dead_letters: d.postgres.factDeadLetters,
      },
      clickhouse: d.clickhouse,
      cache: { attribution_data: d.cacheKeys },
    },
    remaining: { clickhouse: d.clickhouseRemaining },
  };
}
