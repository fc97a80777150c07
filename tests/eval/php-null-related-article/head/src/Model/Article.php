<?php

declare(strict_types=1);

namespace App\Model;

final class Article
{
    public function __construct(
        public readonly int $id,
        public readonly string $slug,
        public readonly string $title,
        public readonly string $body,
        public readonly ?string $relatedSlug,
    ) {
    }

    /** @param array<string, mixed> $row */
    public static function fromRow(array $row): self
    {
        return new self(
            (int) $row['id'],
            (string) $row['slug'],
            (string) $row['title'],
            (string) $row['body'],
            $row['related_slug'] !== null ? (string) $row['related_slug'] : null,
        );
    }
}
