import { describe, expect, it } from "vitest";
import {
  closestKey,
  displayPath,
  editDistance,
  normaliseKeys,
  toCamelKey,
  toSnakeKey,
} from "./keys.js";

describe("§2.1 key spelling", () => {
  it("§2.1 snake_case aliases map to camelCase, aws_profile to profile", () => {
    expect(toCamelKey("force_path_style")).toBe("forcePathStyle");
    expect(toCamelKey("access_key_env")).toBe("accessKeyEnv");
    expect(toCamelKey("account_id")).toBe("accountId");
    expect(toCamelKey("aws_profile")).toBe("profile");
    expect(toCamelKey("bucket")).toBe("bucket");
    expect(toSnakeKey("sessionTokenEnv")).toBe("session_token_env");
    expect(toSnakeKey("profile")).toBe("aws_profile");
  });

  it("§2.1 normalising remembers what the user wrote and refuses both spellings at once", () => {
    const { value, origins } = normaliseKeys({
      s3: { force_path_style: true, list: [{ max_keys: 1 }] },
    });
    expect(value).toEqual({ s3: { forcePathStyle: true, list: [{ maxKeys: 1 }] } });
    expect(displayPath(["s3", "forcePathStyle"], origins)).toBe("s3.force_path_style");
    expect(displayPath(["s3", "list", 0, "maxKeys"], origins, "file")).toBe(
      "file.s3.list[0].max_keys",
    );
    expect(() => normaliseKeys({ s3: { forcePathStyle: true, force_path_style: false } })).toThrow(
      /both `forcePathStyle` and `force_path_style` are set in s3/,
    );
  });

  it("§2.1 closest valid key by edit distance, nothing for unrelated keys", () => {
    expect(editDistance("bukcet", "bucket")).toBe(1);
    expect(closestKey("bukcet", ["bucket", "prefix", "region"])).toBe("bucket");
    expect(closestKey("acces_key_env", ["accessKeyEnv", "secretKeyEnv"])).toBe("accessKeyEnv");
    expect(closestKey("regoin", ["bucket", "prefix", "region"])).toBe("region");
    expect(closestKey("zzzzzzz", ["bucket", "prefix", "region"])).toBeUndefined();
  });
});
