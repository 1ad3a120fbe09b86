-- attributed-users and the campaign list's attributed_users join users to their registering install.
CREATE INDEX app_users_install ON app_users (project_id, install_instance_id);

-- The attribution job reads clicks still waiting in the outbox (read-your-writes), by project.
CREATE INDEX fact_outbox_table_project ON fact_outbox (fact_table, project_id);
