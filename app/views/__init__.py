"""Views: service results shaped into page contexts and their JSON twins, one place."""
