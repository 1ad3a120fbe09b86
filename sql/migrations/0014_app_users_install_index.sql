-- attributed-users and the campaign list's attributed_users join users to their registering install.
CREATE INDEX app_users_install ON app_users (project_id, install_instance_id);
